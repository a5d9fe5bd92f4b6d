import { waitForLockWaiters } from '@svc/testing';
import { Client } from 'pg';
import { SWAP_LOCK_TIMEOUT_MS } from './seed-swap';
import { WarehouseFixture, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_seed');
});

afterAll(async () => {
  await fixture.stop();
});

const customerColumns = [column('id', 'integer'), column('name', 'text'), column('score', 'numeric(38,10)')];

interface Customer {
  id: number;
  name: string | null;
  score: string | null;
}

interface HistoryRow extends Customer {
  row_id: string;
  valid_from: Date;
  valid_to: Date | null;
  is_current: boolean;
  is_deleted: boolean;
}

const HISTORY = `SELECT id, name, score, svc_sys_row_id AS row_id, svc_sys_valid_from AS valid_from, svc_sys_valid_to AS valid_to,
  svc_sys_is_current AS is_current, svc_sys_is_deleted AS is_deleted`;

describe('seed of a Type1 table', () => {
  it('collects parts in the shadow and replaces the target only with the final part', async () => {
    const schema = fixture.newSchema();
    const customers = table('sales', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type1');
    expect(await fixture.warehouse.ensureTable(customers, options)).toEqual({ created: true, addedColumns: [] });

    expect(await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1.5\n2,Bob,\n'], options)).toEqual({ applied: true, rowCount: 2 });
    expect(await fixture.load(seedBatch(customers, 'A', 1, false), ['3,"Cy, Jr.",-2\n', '4,"",0\n'], options)).toEqual({ applied: true, rowCount: 2 });
    expect(await fixture.count(`${schema}.sales_customers`)).toBe(0);
    expect(await fixture.count(`${schema}.svc_seed_sales_customers`)).toBe(4);

    expect(await fixture.load(seedBatch(customers, 'A', 2, true), ['5,Eve,3\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await fixture.rows<Customer>(`SELECT id, name, score::text FROM ${schema}.sales_customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', score: '1.5000000000' },
      { id: 2, name: 'Bob', score: null },
      { id: 3, name: 'Cy, Jr.', score: '-2.0000000000' },
      { id: 4, name: '', score: '0.0000000000' },
      { id: 5, name: 'Eve', score: '3.0000000000' },
    ]);
    // The completed seed's shadow is gone: between seeds the user's schema holds no `svc_seed_*` table (issue 40).
    expect(await exists(`${schema}.svc_seed_sales_customers`)).toBe(false);
  });

  it('a reseed upserts changed rows, deletes removed ones and leaves unchanged rows untouched', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type1', true);
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann,1\n2,Bob,2\n3,Cy,3\n'], options);
    const before = await stamps(schema);

    await fixture.load(seedBatch(customers, 'B', 0, false), ['1,Ann,1\n2,Bobby,2\n'], options);
    await fixture.load(seedBatch(customers, 'B', 1, true), ['4,Dee,\n'], options);

    expect(await fixture.rows<Customer>(`SELECT id, name, score::int::text AS score FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', score: '1' },
      { id: 2, name: 'Bobby', score: '2' },
      { id: 4, name: 'Dee', score: null },
    ]);
    const after = await stamps(schema);
    expect(after.get(1)).toEqual(before.get(1));
    expect(after.get(2)!.getTime()).toBeGreaterThan(before.get(2)!.getTime());
    expect(after.get(4)!.getTime()).toBe(after.get(2)!.getTime());
  });
});

describe('seed of a Type2 table', () => {
  it('makes every seeded row current', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type2');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n'], options);
    await fixture.load(seedBatch(customers, 'A', 1, false), ['2,Bob,2\n'], options);
    expect(await fixture.count(`${schema}.customers`)).toBe(0);
    await fixture.load(seedBatch(customers, 'A', 2, true), ['3,Cy,\n'], options);

    const rows = await fixture.rows<HistoryRow>(`${HISTORY} FROM ${schema}.customers ORDER BY id`);
    expect(rows.map((row) => [row.id, row.name, row.is_current, row.is_deleted, row.valid_to])).toEqual([
      [1, 'Ann', true, false, null],
      [2, 'Bob', true, false, null],
      [3, 'Cy', true, false, null],
    ]);
    expect(new Set(rows.map((row) => row.valid_from.getTime())).size).toBe(1);
  });

  it('a reseed closes removed (deleted) and changed rows, adds new versions and keeps unchanged rows', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type2', true);
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann,1\n2,Bob,2\n3,Cy,3\n'], options);
    const [first] = await fixture.rows<HistoryRow>(`${HISTORY} FROM ${schema}.customers WHERE id = 1`);

    await fixture.load(seedBatch(customers, 'B', 0, true), ['1,Ann,1\n2,Bob,\n4,Dee,4\n'], options);
    const history = await fixture.rows<HistoryRow>(`${HISTORY} FROM ${schema}.customers ORDER BY id, svc_sys_row_id`);
    expect(history.map((row) => [row.id, row.name, row.score === null ? null : Number(row.score), row.is_current, row.is_deleted])).toEqual([
      [1, 'Ann', 1, true, false],
      [2, 'Bob', 2, false, false],
      [2, 'Bob', null, true, false],
      [3, 'Cy', 3, false, true],
      [4, 'Dee', 4, true, false],
    ]);
    expect(history[0]).toEqual(first);
    const [closed, reopened] = [history[1], history[2]];
    expect(closed.valid_to).toEqual(reopened.valid_from);
    expect(history[3].valid_to).toEqual(reopened.valid_from);

    // A key that comes back after its deletion starts a new current version.
    await fixture.load(seedBatch(customers, 'C', 0, true), ['1,Ann,1\n2,Bob,\n3,Cy,3\n4,Dee,4\n'], options);
    const cy = await fixture.rows<HistoryRow>(`${HISTORY} FROM ${schema}.customers WHERE id = 3 ORDER BY svc_sys_row_id`);
    expect(cy.map((row) => [row.is_current, row.is_deleted])).toEqual([
      [false, true],
      [true, false],
    ]);
    expect(await fixture.count(`${schema}.customers`)).toBe(6);
  });
});

describe('seed parts of an abandoned seed', () => {
  it('are stale: they change nothing and the newer seed completes with its own rows only', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);

    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n2,Bob,2\n'], options);
    await fixture.load(seedBatch(customers, 'B', 0, false), ['10,Ten,10\n'], options);
    const readsBefore = fixture.files.reads.length;
    expect(await fixture.load(seedBatch(customers, 'A', 1, false), ['3,Cy,3\n'], options)).toEqual({ applied: false, rowCount: 0 });
    expect(fixture.files.reads.length).toBe(readsBefore);
    expect(await fixture.rows(`SELECT id FROM ${schema}.svc_seed_customers`)).toEqual([{ id: 10 }]);

    await fixture.load(seedBatch(customers, 'B', 1, true), ['11,Eleven,11\n'], options);
    expect(await fixture.load(seedBatch(customers, 'A', 2, true), ['4,Dee,4\n'], options)).toEqual({ applied: false, rowCount: 0 });
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 10 }, { id: 11 }]);
  });
});

describe('seed of a table without a primary key', () => {
  it.each(['Type1', 'Type2'] as const)('%s: a plain table whose content each seed replaces', async (scdType) => {
    const schema = fixture.newSchema();
    const events = table('audit', 'events', [column('kind', 'text'), column('amount', 'integer')], []);
    const options = fixture.options(schema, scdType);
    await fixture.warehouse.ensureTable(events, options);
    const columns = await fixture.rows<{ name: string }>(
      `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'audit_events' ORDER BY ordinal_position`,
      [schema],
    );
    expect(columns.map((row) => row.name)).toEqual(['kind', 'amount']);

    expect(await exists(`${schema}.svc_seed_audit_events`)).toBe(false);
    await fixture.load(seedBatch(events, 'A', 0, false), ['a,1\na,1\n'], options);
    const shadow = await relation(`${schema}.svc_seed_audit_events`);
    await fixture.load(seedBatch(events, 'A', 1, true), [',\n'], options);
    expect(await fixture.count(`${schema}.audit_events`)).toBe(3);
    // The first seed made the shadow the target: the source columns only, no key, nothing else.
    expect((await relation(`${schema}.audit_events`)).oid).toBe(shadow.oid);
    expect(await columnsOf(schema, 'audit_events')).toEqual(['kind', 'amount']);
    expect(await constraintsOf(`${schema}.audit_events`)).toEqual([]);
    await fixture.load(seedBatch(events, 'B', 0, false), ['b,2\n'], options);
    await fixture.load(seedBatch(events, 'B', 1, true), ['b,2\n'], options);
    expect(await fixture.rows(`SELECT kind, amount FROM ${schema}.audit_events`)).toEqual([
      { kind: 'b', amount: 2 },
      { kind: 'b', amount: 2 },
    ]);
  });
});

async function stamps(schema: string): Promise<Map<number, Date>> {
  const rows = await fixture.rows<{ id: number; stamp: Date }>(`SELECT id, svc_sys_update_timestamp AS stamp FROM ${schema}.customers`);
  return new Map(rows.map((row) => [row.id, row.stamp]));
}

describe('an ScdType change', () => {
  it('keeps the previous table under a new name and seeds a new one of the new type, both ways', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const type1 = fixture.options(schema, 'Type1');
    const type2 = fixture.options(schema, 'Type2');
    await fixture.warehouse.ensureTable(customers, type1);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann,1\n2,Bob,2\n'], type1);

    const toType2 = await fixture.warehouse.ensureTable(customers, type2);
    expect(toType2).toMatchObject({ created: true, keptAs: expect.stringMatching(/^customers_type1_\d{8}_\d{6}$/) as unknown });
    await fixture.load(seedBatch(customers, 'B', 0, true, 2), ['1,Ann,1\n2,Bobby,2\n'], type2);
    expect(await fixture.rows<{ id: number; name: string }>(`SELECT id, name FROM ${schema}.${String(toType2.keptAs)} ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
    ]);
    expect(await fixture.rows<Pick<HistoryRow, 'id' | 'name' | 'is_current'>>(`SELECT id, name, svc_sys_is_current AS is_current FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', is_current: true },
      { id: 2, name: 'Bobby', is_current: true },
    ]);
    // The same table again is left alone.
    expect(await fixture.warehouse.ensureTable(customers, type2)).toEqual({ created: false, addedColumns: [] });

    // And back: the Type2 history is kept, its current-key index renamed with it, a Type1 table seeded.
    await new Promise((done) => setTimeout(done, 1100));
    const toType1 = await fixture.warehouse.ensureTable(customers, type1);
    expect(toType1).toMatchObject({ created: true, keptAs: expect.stringMatching(/^customers_type2_/) as unknown });
    await fixture.load(seedBatch(customers, 'C', 0, true, 3), ['2,Bobby,2\n3,Cy,3\n'], type1);
    expect(await fixture.rows<{ id: number; name: string }>(`SELECT id, name FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 2, name: 'Bobby' },
      { id: 3, name: 'Cy' },
    ]);
    expect(await fixture.count(`${schema}.${String(toType1.keptAs)}`)).toBe(2);
    // A third change creates the Type2 table again beside the kept one (index names do not collide).
    await new Promise((done) => setTimeout(done, 1100));
    expect(await fixture.warehouse.ensureTable(customers, type2)).toMatchObject({ created: true });
  });
});

describe('a first seed into an empty target', () => {
  it('Type1 with AddUpdateTimestamp: the shadow becomes the target, not rewritten, with a primary key, NOT NULL keys and one load time', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type1', true);
    await fixture.warehouse.ensureTable(customers, options);
    const emptyTarget = await relation(`${schema}.customers`);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1.5\n2,Bob,\n'], options);
    const shadow = await relation(`${schema}.svc_seed_customers`);
    expect(await fixture.load(seedBatch(customers, 'A', 1, true, 3), ['3,Cy,3\n'], options)).toEqual({ applied: true, rowCount: 1 });

    const target = await relation(`${schema}.customers`);
    expect(target).toEqual(shadow);
    expect(target.oid).not.toBe(emptyTarget.oid);
    expect(await droppedColumnsOf(`${schema}.customers`)).toEqual([]);
    expect(await fixture.rows<Customer>(`SELECT id, name, score::text FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', score: '1.5000000000' },
      { id: 2, name: 'Bob', score: null },
      { id: 3, name: 'Cy', score: '3.0000000000' },
    ]);
    expect(await columnsOf(schema, 'customers')).toEqual(['id', 'name', 'score', 'svc_sys_update_timestamp']);
    expect(await notNullColumnsOf(`${schema}.customers`)).toEqual(['id']);
    expect(await constraintsOf(`${schema}.customers`)).toEqual(['customers_pkey PRIMARY KEY (id)']);
    await expect(fixture.sql.query(`INSERT INTO ${schema}.customers (id, name) VALUES (1, 'Ann again')`)).rejects.toMatchObject({ code: '23505' });
    await expect(fixture.sql.query(`INSERT INTO ${schema}.customers (name) VALUES ('no key')`)).rejects.toMatchObject({ code: '23502' });

    // Every row carries the load's stamp, which is also when the final part was recorded; no default is left.
    const [stamp] = await fixture.rows<{ distinct: number; loaded: boolean; defaults: number }>(
      `SELECT count(DISTINCT svc_sys_update_timestamp)::int AS distinct,
              bool_and(svc_sys_update_timestamp = (SELECT loaded_at FROM ${schema}.svc_sys_loaded_batches WHERE batch_id = $1)) AS loaded,
              (SELECT count(*)::int FROM pg_attrdef WHERE adrelid = $2::regclass) AS defaults
         FROM ${schema}.customers`,
      ['customers:seed:A:1', `${schema}.customers`],
    );
    expect(stamp).toEqual({ distinct: 1, loaded: true, defaults: 0 });

    // No shadow is left (the next seed makes one); the bookkeeping is the merge path's.
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
    expect(await fixture.rows(`SELECT batch_id FROM ${schema}.svc_sys_loaded_batches ORDER BY batch_id`)).toEqual([
      { batch_id: 'customers:seed:A:0' },
      { batch_id: 'customers:seed:A:1' },
    ]);
    expect(await fixture.rows(`SELECT table_name, seed_id FROM ${schema}.svc_sys_table_seeds`)).toEqual([{ table_name: 'customers', seed_id: 'A' }]);
    expect(await fixture.rows(`SELECT replication_id, table_name, epoch::int FROM ${schema}.svc_sys_table_fences`)).toEqual([
      { replication_id: 'r1', table_name: 'customers', epoch: 3 },
    ]);

    // The next seed finds rows and merges into the same table (its ON CONFLICT uses the key built by the swap).
    await fixture.load(seedBatch(customers, 'B', 0, true, 3), ['1,Ann,1.5\n2,Bobby,\n4,Dee,4\n'], options);
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await fixture.rows(`SELECT id, name FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bobby' },
      { id: 4, name: 'Dee' },
    ]);
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
  });

  it('with RebuildIndexes the swapped-in table keeps its freshly built key', async () => {
    const schema = fixture.newSchema();
    const customers = table('public', 'customers', customerColumns, ['id']);
    const options = fixture.options(schema, 'Type1');
    const rebuilding = fixture.connector({ statementTimeoutMs: 30_000, rebuildIndexes: true });
    await rebuilding.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n'], options, rebuilding);
    const shadow = await relation(`${schema}.svc_seed_customers`);
    await fixture.load(seedBatch(customers, 'A', 1, true), ['2,Bob,2\n'], options, rebuilding);
    expect((await relation(`${schema}.customers`)).oid).toBe(shadow.oid);
    expect(await constraintsOf(`${schema}.customers`)).toEqual(['customers_pkey PRIMARY KEY (id)']);
    expect(await fixture.count(`${schema}.customers`)).toBe(2);
  });

  const customers = table('public', 'customers', customerColumns, ['id']);
  it.each<[string, (schema: string) => string, (schema: string) => Promise<void>]>([
    [
      'a view reads it',
      (schema) => `CREATE VIEW ${schema}.customer_names AS SELECT id, name FROM ${schema}.customers`,
      async (schema) => expect(await fixture.rows(`SELECT id, name FROM ${schema}.customer_names ORDER BY id`)).toEqual([
        { id: 1, name: 'Ann' },
        { id: 2, name: 'Bob' },
      ]),
    ],
    [
      'a foreign key references it',
      (schema) => `CREATE TABLE ${schema}.orders (customer_id integer REFERENCES ${schema}.customers (id))`,
      async (schema) => {
        await fixture.sql.query(`INSERT INTO ${schema}.orders VALUES (2)`);
        await expect(fixture.sql.query(`INSERT INTO ${schema}.orders VALUES (9)`)).rejects.toMatchObject({ code: '23503' });
      },
    ],
    [
      'it has a grant of its own',
      (schema) => `GRANT SELECT ON ${schema}.customers TO PUBLIC`,
      async (schema) => {
        const [row] = await fixture.rows<{ acl: string }>(`SELECT relacl::text AS acl FROM pg_class WHERE oid = $1::regclass`, [`${schema}.customers`]);
        expect(row?.acl).toMatch(/"?=r\//);
      },
    ],
    [
      'it has an index of its own',
      (schema) => `CREATE INDEX customers_by_name ON ${schema}.customers (name)`,
      async (schema) => expect(await fixture.rows(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'customers' ORDER BY 1`, [schema])).toEqual([
        { indexname: 'customers_by_name' },
        { indexname: 'customers_pkey' },
      ]),
    ],
  ])('when %s, the seed is merged into the target, which keeps it', async (_what, setUp, stillThere) => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.sql.query(setUp(schema));
    const target = await relation(`${schema}.customers`);

    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n'], options);
    await fixture.load(seedBatch(customers, 'A', 1, true), ['2,Bob,2\n'], options);
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
    expect(await fixture.rows(`SELECT id, name FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
    ]);
    await stillThere(schema);
  });

  it('Type2: the seed is merged into the target, which stays (a bigserial row id would rewrite it), and the shadow goes', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type2', true);
    await fixture.warehouse.ensureTable(customers, options);
    const target = await relation(`${schema}.customers`);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann,1\n2,Bob,2\n'], options);
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
    expect(await fixture.count(`${schema}.customers WHERE svc_sys_is_current`)).toBe(2);
  });

  it('a final part that fails inside the swap (a duplicate key) leaves the target empty and the shadow whole; the retry completes', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n2,Bob,2\n'], options);
    await fixture.load(seedBatch(customers, 'A', 1, false), ['3,Cy,3\n'], options);
    const target = await relation(`${schema}.customers`);
    const shadow = await relation(`${schema}.svc_seed_customers`);

    const final = seedBatch(customers, 'A', 2, true);
    await expect(fixture.load(final, ['4,Dee,4\n1,Ann,1\n'], options)).rejects.toMatchObject({ code: '23505' });
    await expectNothingSwapped(schema, target, shadow, final.batchId);

    expect(await fixture.load(final, ['4,Dee,4\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await relation(`${schema}.customers`)).toEqual(shadow);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
  });

  it('a final part cancelled (statement timeout) while it waits for a reader of the empty target leaves both tables as they were; the retry completes', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n2,Bob,2\n'], options);
    const target = await relation(`${schema}.customers`);
    const shadow = await relation(`${schema}.svc_seed_customers`);
    const final = seedBatch(customers, 'A', 1, true);

    const reader = await session();
    try {
      await reader.query('BEGIN');
      expect((await reader.query(`SELECT count(*)::int AS n FROM ${schema}.customers`)).rows).toEqual([{ n: 0 }]);
      const impatient = fixture.connector({ statementTimeoutMs: SWAP_LOCK_TIMEOUT_MS / 4 });
      await expect(fixture.load(final, ['3,Cy,3\n'], options, impatient)).rejects.toMatchObject({ code: '57014' });
      await reader.query('COMMIT');
    } finally {
      await reader.end();
    }
    await expectNothingSwapped(schema, target, shadow, final.batchId);

    expect(await fixture.load(final, ['3,Cy,3\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await relation(`${schema}.customers`)).toEqual(shadow);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('a reader that keeps the empty target past the lock timeout makes the final part merge instead of waiting on', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n2,Bob,2\n'], options);
    const target = await relation(`${schema}.customers`);

    const reader = await session();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM ${schema}.customers`);
      const started = Date.now();
      expect(await fixture.load(seedBatch(customers, 'A', 1, true), ['3,Cy,3\n'], options)).toEqual({ applied: true, rowCount: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(SWAP_LOCK_TIMEOUT_MS - 10);
      expect((await reader.query(`SELECT count(*)::int AS n FROM ${schema}.customers`)).rows).toEqual([{ n: 3 }]);
      await reader.query('COMMIT');
    } finally {
      await reader.end();
    }
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
  });

  it('a reader waiting for the swap sees the whole seed once it is done, never a part of it', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n2,Bob,2\n'], options);
    const shadow = await relation(`${schema}.svc_seed_customers`);

    const holder = await session();
    const waiter = await session();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT count(*) FROM ${schema}.customers`);
      const load = fixture.load(seedBatch(customers, 'A', 1, true), ['3,Cy,3\n'], options);
      load.catch(() => undefined); // awaited below
      await waitForLockWaiters(fixture.sql, 1, 'the final part to wait for the reader holding the empty target');
      const read = waiter.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.customers`);
      read.catch(() => undefined); // awaited below
      await waitForLockWaiters(fixture.sql, 2, 'a second reader to queue behind the final part');
      await holder.query('COMMIT');

      await expect(load).resolves.toEqual({ applied: true, rowCount: 1 });
      expect((await read).rows).toEqual([{ n: 3 }]);
      expect(await relation(`${schema}.customers`)).toEqual(shadow);
    } finally {
      await holder.end();
      await waiter.end();
    }
  });
});

describe('a shadow created by an earlier version, whose rows were stamped with their seed (svc_sys_seed_id)', () => {
  const customers = table('public', 'customers', customerColumns, ['id']);
  const LEGACY_COLUMNS = ['id', 'name', 'score', 'svc_sys_seed_id'];

  /** A shadow as earlier versions created it (and kept between seeds). */
  async function legacyShadow(schema: string): Promise<Relation> {
    await fixture.sql.query(`DROP TABLE IF EXISTS ${schema}.svc_seed_customers`);
    await fixture.sql.query(`CREATE TABLE ${schema}.svc_seed_customers (id integer, name text, score numeric(38,10), svc_sys_seed_id text)`);
    return relation(`${schema}.svc_seed_customers`);
  }

  it('a new seed into the empty target: part 0 replaces the shadow by an unstamped one, which is swapped in without a dropped column', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1', true);
    await fixture.warehouse.ensureTable(customers, options);
    const legacy = await legacyShadow(schema);
    expect(await fixture.warehouse.ensureTable(customers, options)).toEqual({ created: false, addedColumns: [] });
    expect(await columnsOf(schema, 'svc_seed_customers')).toEqual(LEGACY_COLUMNS);

    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n2,Bob,2\n'], options);
    const shadow = await relation(`${schema}.svc_seed_customers`);
    expect(shadow.oid).not.toBe(legacy.oid);
    expect(await columnsOf(schema, 'svc_seed_customers')).toEqual(['id', 'name', 'score']);
    expect(await droppedColumnsOf(`${schema}.svc_seed_customers`)).toEqual([]);

    expect(await fixture.load(seedBatch(customers, 'A', 1, true), ['3,Cy,3\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await relation(`${schema}.customers`)).toEqual(shadow);
    expect(await columnsOf(schema, 'customers')).toEqual(['id', 'name', 'score', 'svc_sys_update_timestamp']);
    expect(await droppedColumnsOf(`${schema}.customers`)).toEqual([]);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
  });

  it.each(['Type1', 'Type2'] as const)('%s: a new seed merged into a target with rows works the same, its shadow unstamped while it runs and gone after', async (scdType) => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, scdType);
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann,1\n2,Bob,2\n'], options);
    const target = await relation(`${schema}.customers`);
    await legacyShadow(schema);

    await fixture.load(seedBatch(customers, 'B', 0, false), ['1,Ann,1\n'], options);
    expect(await columnsOf(schema, 'svc_seed_customers')).toEqual(['id', 'name', 'score']);
    expect(await fixture.load(seedBatch(customers, 'B', 1, true), ['3,Cy,3\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await relation(`${schema}.customers`)).toEqual(target);
    const current = scdType === 'Type2' ? ' WHERE svc_sys_is_current' : '';
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers${current} ORDER BY id`)).toEqual([{ id: 1 }, { id: 3 }]);
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
  });

  it('a seed that an earlier version started completes by a merge, not a swap (which would leave the stamp column dropped in the target)', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1', true);
    await fixture.warehouse.ensureTable(customers, options);
    const target = await relation(`${schema}.customers`);
    // Part 0 as an earlier version loaded it: the shadow stamped through the column default, the seed recorded.
    const legacy = await legacyShadow(schema);
    await fixture.sql.query(`ALTER TABLE ${schema}.svc_seed_customers ALTER COLUMN svc_sys_seed_id SET DEFAULT 'A'`);
    await fixture.sql.query(`INSERT INTO ${schema}.svc_seed_customers (id, name, score) VALUES (1, 'Ann', 1), (2, 'Bob', 2)`);
    await fixture.sql.query(`INSERT INTO ${schema}.svc_sys_table_seeds (table_name, seed_id) VALUES ('customers', 'A')`);
    await fixture.sql.query(`INSERT INTO ${schema}.svc_sys_loaded_batches (batch_id) VALUES ('customers:seed:A:0')`);

    expect(await fixture.load(seedBatch(customers, 'A', 1, true), ['3,Cy,3\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await columnsOf(schema, 'customers')).toEqual(['id', 'name', 'score', 'svc_sys_update_timestamp']);
    expect(await droppedColumnsOf(`${schema}.customers`)).toEqual([]);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(await fixture.count(`${schema}.customers WHERE svc_sys_update_timestamp IS NULL`)).toBe(0);
    // The old shadow went with the completed seed.
    expect(await exists(`${schema}.svc_seed_customers`)).toBe(false);
    expect(legacy.oid).toBeGreaterThan(0);

    // The next seed makes a new one, unstamped.
    await fixture.load(seedBatch(customers, 'B', 0, false), ['1,Ann,1\n'], options);
    expect(await columnsOf(schema, 'svc_seed_customers')).toEqual(['id', 'name', 'score']);
    await fixture.load(seedBatch(customers, 'B', 1, true), [], options);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }]);
  });

  it('a shadow with a dropped column is replaced at part 0 too, so the swap never carries it into the target', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await legacyShadow(schema);
    await fixture.sql.query(`ALTER TABLE ${schema}.svc_seed_customers DROP COLUMN svc_sys_seed_id`);
    expect(await droppedColumnsOf(`${schema}.svc_seed_customers`)).toHaveLength(1);

    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann,1\n'], options);
    expect(await droppedColumnsOf(`${schema}.customers`)).toEqual([]);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }]);
  });

  it('a shadow that cannot be dropped (a view on it) is truncated at part 0, and the seed merged, never swapped', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    const target = await relation(`${schema}.customers`);
    const legacy = await legacyShadow(schema);
    await fixture.sql.query(`CREATE VIEW ${schema}.shadow_watch AS SELECT id FROM ${schema}.svc_seed_customers`);

    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n'], options);
    expect((await relation(`${schema}.svc_seed_customers`)).oid).toBe(legacy.oid);
    expect(await fixture.load(seedBatch(customers, 'A', 1, true), ['2,Bob,2\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await columnsOf(schema, 'customers')).toEqual(['id', 'name', 'score']);
    expect(await droppedColumnsOf(`${schema}.customers`)).toEqual([]);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }]);
    // It cannot be dropped at the end either: it is emptied, and stays.
    expect((await relation(`${schema}.svc_seed_customers`)).oid).toBe(legacy.oid);
    expect(await fixture.count(`${schema}.svc_seed_customers`)).toBe(0);
  });

  it('a shadow that got a dropped column during a seed is merged at the final part, not swapped', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    const target = await relation(`${schema}.customers`);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann,1\n'], options);
    await fixture.sql.query(`ALTER TABLE ${schema}.svc_seed_customers ADD COLUMN note text`);
    await fixture.sql.query(`ALTER TABLE ${schema}.svc_seed_customers DROP COLUMN note`);

    await fixture.load(seedBatch(customers, 'A', 1, true), ['2,Bob,2\n'], options);
    expect(await relation(`${schema}.customers`)).toEqual(target);
    expect(await droppedColumnsOf(`${schema}.customers`)).toEqual([]);
    expect(await fixture.rows(`SELECT id FROM ${schema}.customers ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

async function expectNothingSwapped(schema: string, target: Relation, shadow: Relation, finalBatchId: string): Promise<void> {
  expect(await relation(`${schema}.customers`)).toEqual(target);
  expect(await relation(`${schema}.svc_seed_customers`)).toEqual(shadow);
  expect(await fixture.count(`${schema}.customers`)).toBe(0);
  expect(await fixture.count(`${schema}.svc_seed_customers`)).toBeGreaterThan(0);
  expect(await fixture.warehouse.hasLoaded(finalBatchId, fixture.options(schema, 'Type1'))).toBe(false);
  expect(await columnsOf(schema, 'svc_seed_customers')).toEqual(['id', 'name', 'score']);
  expect(await constraintsOf(`${schema}.svc_seed_customers`)).toEqual([]);
}

interface Relation {
  oid: number;
  file: string;
}

/** A table's identity and its data file: a renamed table keeps both, a rewritten one gets a new file. */
async function relation(qualifiedTable: string): Promise<Relation> {
  const [row] = await fixture.rows<Relation>(`SELECT oid::int AS oid, pg_relation_filenode(oid)::text AS file FROM pg_class WHERE oid = $1::regclass`, [qualifiedTable]);
  if (row === undefined) throw new Error(`no table ${qualifiedTable}`);
  return row;
}

async function exists(qualifiedTable: string): Promise<boolean> {
  const [row] = await fixture.rows<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [qualifiedTable]);
  return row?.found === true;
}

async function columnsOf(schema: string, name: string): Promise<string[]> {
  const rows = await fixture.rows<{ name: string }>(
    'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
    [schema, name],
  );
  return rows.map((row) => row.name);
}

/** Columns dropped from a table whose bytes its rows still carry until they are rewritten. */
async function droppedColumnsOf(qualifiedTable: string): Promise<number[]> {
  const rows = await fixture.rows<{ attnum: number }>('SELECT attnum::int FROM pg_attribute WHERE attrelid = $1::regclass AND attisdropped ORDER BY attnum', [
    qualifiedTable,
  ]);
  return rows.map((row) => row.attnum);
}

async function notNullColumnsOf(qualifiedTable: string): Promise<string[]> {
  const rows = await fixture.rows<{ name: string }>(
    'SELECT attname::text AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attnotnull ORDER BY attnum',
    [qualifiedTable],
  );
  return rows.map((row) => row.name);
}

async function constraintsOf(qualifiedTable: string): Promise<string[]> {
  const rows = await fixture.rows<{ text: string }>(
    'SELECT conname || \' \' || pg_get_constraintdef(oid) AS text FROM pg_constraint WHERE conrelid = $1::regclass ORDER BY conname',
    [qualifiedTable],
  );
  return rows.map((row) => row.text);
}

async function session(): Promise<Client> {
  const client = new Client({ connectionString: fixture.database.url });
  await client.connect();
  return client;
}

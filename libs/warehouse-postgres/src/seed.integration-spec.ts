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
    expect(await fixture.count(`${schema}.svc_seed_sales_customers`)).toBe(0);
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
    expect(await fixture.rows(`SELECT id, svc_sys_seed_id AS seed FROM ${schema}.svc_seed_customers`)).toEqual([{ id: 10, seed: 'B' }]);

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

    await fixture.load(seedBatch(events, 'A', 0, true), ['a,1\na,1\n,\n'], options);
    expect(await fixture.count(`${schema}.audit_events`)).toBe(3);
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

import type { StagedFileReader, WarehouseTableOptions } from '@svc/engines';
import { waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_connector');
});

afterAll(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text')], ['id']);

/**
 * Runs `work` on customers in a new schema while another session holds the table locked (ACCESS EXCLUSIVE,
 * in an open transaction that `work` may end with `blocker.query('ROLLBACK')`).
 */
async function whileCustomersLocked(work: (options: WarehouseTableOptions, blocker: Client) => Promise<void>): Promise<void> {
  const schema = fixture.newSchema();
  const options = fixture.options(schema, 'Type1');
  await fixture.warehouse.ensureTable(customers, options);
  const blocker = new Client({ connectionString: fixture.database.url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query(`LOCK TABLE ${schema}.customers IN ACCESS EXCLUSIVE MODE`);
    await work(options, blocker);
  } finally {
    await blocker.end();
  }
}

describe('loading a batch again', () => {
  it.each(['Type1', 'Type2'] as const)('%s: a batch loaded before changes nothing', async (scdType) => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, scdType);
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann\n2,Bob\n'], options);
    const batch = changeBatch(customers, 1, 2);
    expect(await fixture.load(batch, ['U,1,Anna\nD,2,\n'], options)).toEqual({ applied: true, rowCount: 2 });
    const snapshot = await fixture.csv(`SELECT * FROM ${schema}.customers ORDER BY 1`);

    expect(await fixture.load(batch, ['U,1,Anna\nD,2,\n'], options)).toEqual({ applied: false, rowCount: 0 });
    expect(await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann\n2,Bob\n'], options)).toEqual({ applied: false, rowCount: 0 });
    expect(await fixture.csv(`SELECT * FROM ${schema}.customers ORDER BY 1`)).toBe(snapshot);
  });

  it('two loaders loading the same batch at once apply it once', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type2');
    await fixture.warehouse.ensureTable(customers, options);
    const other = fixture.connector({ statementTimeoutMs: 30_000 });
    const batch = changeBatch(customers, 1, 2);
    const outcomes = await Promise.all([fixture.load(batch, ['I,1,Ann\n'], options), fixture.load(batch, ['I,1,Ann\n'], options, other)]);
    expect(outcomes.map((outcome) => outcome.applied).sort()).toEqual([false, true]);
    expect(await fixture.count(`${schema}.customers`)).toBe(1);
  });
});

describe('failures', () => {
  it('a statement over the timeout fails the load, which leaves nothing behind', async () => {
    await whileCustomersLocked(async (options, blocker) => {
      const impatient = fixture.connector({ statementTimeoutMs: 300 });
      const batch = changeBatch(customers, 1, 2);
      const started = Date.now();
      await expect(fixture.load(batch, ['I,1,Ann\n'], options, impatient)).rejects.toMatchObject({
        code: '57014',
        message: expect.stringMatching(/statement timeout/) as unknown,
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      await blocker.query('ROLLBACK');
      expect(await fixture.load(batch, ['I,1,Ann\n'], options)).toEqual({ applied: true, rowCount: 1 });
    });
  });

  it('a part that cannot be read fails the load and rolls back the seed start', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'A', 0, false), ['1,Ann\n'], options);

    const broken: StagedFileReader = {
      readPart: async () =>
        (async function* () {
          yield Buffer.from('2,Bob\n3,C');
          throw new Error('connection reset while reading the part');
        })(),
    };
    const batch = seedBatch(customers, 'B', 0, false);
    await expect(fixture.warehouse.loadBatch(batch, fixture.stage(batch, ['unused']), broken, options)).rejects.toThrow(/connection reset/);
    expect(await fixture.rows(`SELECT id FROM ${schema}.svc_seed_customers`)).toEqual([{ id: 1 }]);
    expect(await fixture.rows(`SELECT seed_id FROM ${schema}.svc_sys_table_seeds`)).toEqual([{ seed_id: 'A' }]);
    expect(await fixture.load(batch, ['2,Bob\n'], options)).toEqual({ applied: true, rowCount: 1 });
  });
});

describe('Warehouse.TimeoutInMins (statementTimeoutMs)', () => {
  /** Sessions of this database's connectors that are waiting for a lock right now. */
  const loadersWaitingForALock = async (): Promise<number> => {
    const [row] = await fixture.rows<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'svc-warehouse-loader' AND wait_event_type = 'Lock'`,
    );
    return row?.n ?? -1;
  };

  it("cancels a connector's statement once it has run for the connector's timeout, and not a connector's with a longer one", async () => {
    await whileCustomersLocked(async (options, blocker) => {
      const impatient = fixture.connector({ statementTimeoutMs: 300 });
      const patient = fixture.connector({ statementTimeoutMs: 60_000 });
      const batch = changeBatch(customers, 1, 2);
      const patientLoad = fixture.load(batch, ['I,1,Ann\n'], options, patient);
      patientLoad.catch(() => undefined); // awaited below; keeps a rejection from going unhandled meanwhile
      await waitUntil(async () => (await loadersWaitingForALock()) === 1, 10_000, 'the patient load to wait for the lock');

      const started = Date.now();
      await expect(fixture.load(batch, ['I,1,Ann\n'], options, impatient)).rejects.toMatchObject({
        code: '57014',
        message: expect.stringMatching(/canceling statement due to statement timeout/) as unknown,
      });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(290);
      expect(waited).toBeLessThan(5_000);

      // The patient load has been waiting longer than 300 ms and is still not cancelled.
      expect(await loadersWaitingForALock()).toBe(1);
      await blocker.query('ROLLBACK');
      await expect(patientLoad).resolves.toEqual({ applied: true, rowCount: 1 });
    });
  });
});

describe('table options', () => {
  it('AddUpdateTimestamp: rows carry the time they were loaded', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1', true);
    await fixture.warehouse.ensureTable(customers, options);
    const [before] = await fixture.rows<{ at: Date }>('SELECT clock_timestamp() AS at');
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann\n2,Bob\n'], options);
    await fixture.load(changeBatch(customers, 1, 2), ['U,2,Bobby\n'], options);
    const [after] = await fixture.rows<{ at: Date }>('SELECT clock_timestamp() AS at');

    const rows = await fixture.rows<{ id: number; stamp: Date }>(`SELECT id, svc_sys_update_timestamp AS stamp FROM ${schema}.customers ORDER BY id`);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.stamp.getTime()).toBeGreaterThanOrEqual(before.at.getTime());
      expect(row.stamp.getTime()).toBeLessThanOrEqual(after.at.getTime());
    }
    expect(rows[1].stamp.getTime()).toBeGreaterThan(rows[0].stamp.getTime());
  });

  it('without AddUpdateTimestamp the column does not exist', async () => {
    const schema = fixture.newSchema();
    await fixture.warehouse.ensureTable(customers, fixture.options(schema, 'Type2'));
    expect(await columnsOf(schema, 'customers')).not.toContain('svc_sys_update_timestamp');
  });

  it('RebuildIndexes: the target is reindexed after a seed', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    const rebuilding = fixture.connector({ statementTimeoutMs: 30_000, rebuildIndexes: true });
    await rebuilding.ensureTable(customers, options);
    const indexFile = async () =>
      (await fixture.rows<{ file: string }>(`SELECT pg_relation_filenode($1::regclass)::text AS file`, [`${schema}.customers_pkey`]))[0]?.file;
    const before = await indexFile();
    await fixture.load(changeBatch(customers, 1, 2), ['I,1,Ann\n'], options, rebuilding);
    expect(await indexFile()).toBe(before);
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann\n2,Bob\n'], options, rebuilding);
    expect(await indexFile()).not.toBe(before);
    expect(await fixture.count(`${schema}.customers`)).toBe(2);
  });
});

describe('schema evolution', () => {
  it.each(['Type1', 'Type2'] as const)('%s: an added source column is added to the target, and to a seed\'s shadow while the seed runs', async (scdType) => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, scdType, true);
    expect(await fixture.warehouse.ensureTable(customers, options)).toEqual({ created: true, addedColumns: [] });
    expect(await fixture.warehouse.ensureTable(customers, options)).toEqual({ created: false, addedColumns: [] });
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann\n'], options);
    // Between seeds no shadow is left in the user's schema (issue 40).
    expect(await columnsOf(schema, 'svc_seed_customers')).toEqual([]);

    const evolved = { ...customers, columns: [...customers.columns, column('email', 'character varying(200)')] };
    expect(await fixture.warehouse.ensureTable(evolved, options)).toEqual({ created: false, addedColumns: ['email'] });
    expect(await columnsOf(schema, 'customers')).toContain('email');
    await fixture.load(seedBatch(customers, 'S', 0, false), ['1,Ann\n'], options);
    const widened = { ...evolved, columns: [...evolved.columns, column('phone', 'text')] };
    await fixture.warehouse.ensureTable(widened, options);
    expect(await columnsOf(schema, 'svc_seed_customers')).toContain('phone');

    await fixture.load(changeBatch(evolved, 1, 2), ['I,2,Bob,bob@example.com\n'], options);
    await fixture.load(seedBatch(evolved, 'B', 0, true), ['1,Ann,\n2,Bob,bob@example.com\n3,Cy,cy@example.com\n'], options);
    const current = scdType === 'Type2' ? 'WHERE svc_sys_is_current' : '';
    expect(await fixture.rows(`SELECT id, name, email FROM ${schema}.customers ${current} ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', email: null },
      { id: 2, name: 'Bob', email: 'bob@example.com' },
      { id: 3, name: 'Cy', email: 'cy@example.com' },
    ]);
  });

  it('a table created without AddUpdateTimestamp gets the column when it is asked for later', async () => {
    const schema = fixture.newSchema();
    await fixture.warehouse.ensureTable(customers, fixture.options(schema, 'Type1'));
    expect(await fixture.warehouse.ensureTable(customers, fixture.options(schema, 'Type1', true))).toEqual({ created: false, addedColumns: [] });
    expect(await columnsOf(schema, 'customers')).toContain('svc_sys_update_timestamp');
  });
});

async function columnsOf(schema: string, name: string): Promise<string[]> {
  const rows = await fixture.rows<{ name: string }>(
    'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
    [schema, name],
  );
  return rows.map((row) => row.name);
}

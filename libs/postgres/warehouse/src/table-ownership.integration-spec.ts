import { ForeignTableError, isEngineError } from '@svc/engines';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_owned');
});

afterAll(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text')], ['id']);

const foreignReason = (qualified: string) =>
  `Warehouse table ${qualified} exists and was not created by this service: it is not written. Drop or rename it, or choose another warehouse database or Warehouse.DatabaseSchema`;

async function tablesOf(schema: string): Promise<string[]> {
  return (await fixture.rows<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, [schema])).map((row) => row.name);
}

/** The control tables of the version before svc_sys_owned_tables, in a new schema. */
async function earlierVersionSchema(): Promise<string> {
  const schema = fixture.newSchema();
  await fixture.sql.query(`CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.svc_sys_loaded_batches (batch_id text PRIMARY KEY, loaded_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE ${schema}.svc_sys_table_seeds (table_name text PRIMARY KEY, seed_id text NOT NULL);
CREATE TABLE ${schema}.svc_sys_table_fences (replication_id text NOT NULL, table_name text NOT NULL, epoch bigint NOT NULL, PRIMARY KEY (replication_id, table_name))`);
  return schema;
}

/**
 * The loader writes only into warehouse tables it created (issue 19): a Warehouse pointing at a database whose
 * schema already has an unrelated table of the replication's name must not have it swapped out or merged into.
 */
describe('PostgreSQL warehouse: tables the service did not create', () => {
  it.each(['Type1', 'Type2'] as const)('%s: refuses a user\'s table of the same name, leaving it and creating nothing', async (scdType) => {
    const schema = fixture.newSchema();
    // A Type2-shaped user table would otherwise be renamed aside for a Type1 replication, and the other way round.
    const history = scdType === 'Type1' ? ', svc_sys_valid_from timestamptz' : '';
    await fixture.sql.query(`CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.customers (id integer PRIMARY KEY, name text, revenue numeric${history});
INSERT INTO ${schema}.customers (id, name, revenue) VALUES (1, 'Acme', 100), (2, 'Globex', 200)`);
    const options = fixture.options(schema, scdType);

    const ensuring = fixture.warehouse.ensureTable(customers, options);
    await expect(ensuring).rejects.toThrow(foreignReason(`${schema}.customers`));
    const error: unknown = await ensuring.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForeignTableError);
    expect(isEngineError(error, 'foreign-table')).toBe(true);

    expect(await fixture.rows(`SELECT id, name, revenue FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Acme', revenue: '100' },
      { id: 2, name: 'Globex', revenue: '200' },
    ]);
    // The refusal rolls back the whole transaction: no shadow, and not even the control tables.
    expect(await tablesOf(schema)).toEqual(['customers']);
    // A restarted loader finds it as foreign as the first did.
    await expect(fixture.connector({ statementTimeoutMs: 30_000 }).ensureTable(customers, options)).rejects.toThrow(foreignReason(`${schema}.customers`));
  });

  it('refuses a user\'s table named like the seed shadow, and creates no target beside it', async () => {
    const schema = fixture.newSchema();
    await fixture.sql.query(`CREATE SCHEMA ${schema};
CREATE TABLE ${schema}.svc_seed_customers (note text);
INSERT INTO ${schema}.svc_seed_customers VALUES ('mine')`);

    await expect(fixture.warehouse.ensureTable(customers, fixture.options(schema, 'Type1'))).rejects.toThrow(foreignReason(`${schema}.svc_seed_customers`));
    expect(await fixture.rows(`SELECT note FROM ${schema}.svc_seed_customers`)).toEqual([{ note: 'mine' }]);
    expect(await tablesOf(schema)).toEqual(['svc_seed_customers']);
  });

  it('records the target and shadow it creates, which a restarted loader keeps seeding (a swap) and merging into', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    expect(await fixture.warehouse.ensureTable(customers, options)).toEqual({ created: true, addedColumns: [] });
    // The first seed into an empty Type1 target swaps the shadow in: the same names, so the same records.
    await fixture.load(seedBatch(customers, 'A', 0, true), ['1,Ann\n2,Bob\n'], options);

    const restarted = fixture.connector({ statementTimeoutMs: 30_000 });
    expect(await restarted.ensureTable(customers, options)).toEqual({ created: false, addedColumns: [] });
    expect(await fixture.load(changeBatch(customers, 1, 2), ['U,1,Anna\nI,3,Cy\n'], options, restarted)).toEqual({ applied: true, rowCount: 2 });
    expect(await fixture.rows(`SELECT id, name FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Anna' },
      { id: 2, name: 'Bob' },
      { id: 3, name: 'Cy' },
    ]);
    expect(await fixture.rows(`SELECT table_name FROM ${schema}.svc_sys_owned_tables ORDER BY 1`)).toEqual([
      { table_name: 'customers' },
      { table_name: 'svc_seed_customers' },
    ]);
  });

  it('lets two replications load one warehouse table (the record is per table, not per replication)', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    const loaderOfOther = fixture.connector({ statementTimeoutMs: 30_000 });
    expect(await loaderOfOther.ensureTable(customers, options)).toEqual({ created: false, addedColumns: [] });
    const other = { ...changeBatch(customers, 1, 2), replicationId: 'r2', batchId: 'r2:customers:changes:1:2' };
    expect(await fixture.load(other, ['I,9,Zed\n'], options, loaderOfOther)).toEqual({ applied: true, rowCount: 1 });
  });

  it.each([
    ['its fence', (schema: string) => `INSERT INTO ${schema}.svc_sys_table_fences VALUES ('r1', 'customers', 1)`, false],
    ['its seed record', (schema: string) => `INSERT INTO ${schema}.svc_sys_table_seeds VALUES ('customers', 'A')`, false],
    ['its shadow beside it (created together, never loaded)', () => 'SELECT 1', true],
  ])('adopts a table an earlier version created, named by %s, and records it', async (_what, namedBy, withShadow) => {
    const schema = await earlierVersionSchema();
    await fixture.sql.query(`CREATE TABLE ${schema}.customers (id integer NOT NULL PRIMARY KEY, name text);
INSERT INTO ${schema}.customers VALUES (1, 'Ann');
${withShadow ? `CREATE TABLE ${schema}.svc_seed_customers (id integer, name text);` : ''}
${namedBy(schema)}`);
    const options = fixture.options(schema, 'Type1');

    expect(await fixture.warehouse.ensureTable(customers, options)).toEqual({ created: false, addedColumns: [] });
    expect(await fixture.load(changeBatch(customers, 5, 6), ['U,1,Anna\nI,2,Bob\n'], options)).toEqual({ applied: true, rowCount: 2 });
    expect(await fixture.rows(`SELECT id, name FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Anna' },
      { id: 2, name: 'Bob' },
    ]);
    expect(await fixture.rows(`SELECT table_name FROM ${schema}.svc_sys_owned_tables ORDER BY 1`)).toEqual([
      { table_name: 'customers' },
      { table_name: 'svc_seed_customers' },
    ]);
  });
});

import { OwnObjectMissingError, type WarehouseTableOptions } from '@svc/engines';
import { TEST_POSTGRES_URL } from '@svc/testing';
import { Client } from 'pg';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeEach(async () => {
  fixture = await WarehouseFixture.start('wh_recreated');
});

afterEach(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text')], ['id']);

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Seeds the table, then the loss; the inspection session is connected again afterwards. */
async function seededThen(loss: (schema: string) => Promise<void>): Promise<WarehouseTableOptions> {
  const schema = fixture.newSchema();
  const options = fixture.options(schema, 'Type1');
  await fixture.warehouse.ensureTable(customers, options);
  expect(await fixture.load(seedBatch(customers, 'S', 0, true), ['1,Ann\n2,Bob\n'], options)).toEqual({ applied: true, rowCount: 2 });
  await loss(schema);
  return options;
}

/** The database goes, sessions and all (the inspection client's too), and comes back empty. */
async function recreateDatabase(): Promise<void> {
  const { name } = fixture.database;
  await admin(`DROP DATABASE "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  await fixture.reconnect();
}

/**
 * The connector caches "this schema's control tables exist". A warehouse database recreated under a running
 * loader (the demo's second run), its schema dropped, or one control table dropped: the next batch creates
 * what is missing and loads, without a restart, whichever operation meets the loss first.
 */
describe('PostgreSQL warehouse after its database, schema or control tables were recreated', () => {
  it('a recreated database: the next batch, checked for staleness first as the loader does, loads', async () => {
    const options = await seededThen(recreateDatabase);

    const next = seedBatch(customers, 'S2', 0, true, 2);
    expect(await fixture.warehouse.isStale(next, options)).toBe(false);
    expect(await fixture.warehouse.ensureTable(customers, options)).toMatchObject({ created: true });
    expect(await fixture.load(next, ['7,Eve\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await fixture.csv(`SELECT id, name FROM ${options.schema}.customers ORDER BY id`)).toBe('7,Eve\n');
  });

  it('a recreated database: each operation on its own finds the control tables gone and creates them again', async () => {
    const options = await seededThen(recreateDatabase);
    expect(await fixture.warehouse.hasLoaded('customers:seed:S:0', options)).toBe(false);

    await recreateDatabase();
    expect(await fixture.warehouse.forgetLoadedBatches(new Date(), options)).toBe(0);

    await recreateDatabase();
    await fixture.warehouse.ensureTable(customers, options);
    await recreateDatabase();
    // The load meets the missing control tables (and target) first: it fails retryably, and the loader's retry recreates the table.
    await expect(fixture.load(changeBatch(customers, 100, 200), ['U,1,Ann 2\n'], options)).rejects.toBeInstanceOf(OwnObjectMissingError);
    expect(await fixture.warehouse.ensureTable(customers, options)).toMatchObject({ created: true });
    expect(await fixture.load(seedBatch(customers, 'S3', 0, true, 3), ['8,Fay\n'], options)).toEqual({ applied: true, rowCount: 1 });
  });

  it.each([
    ['the schema', (schema: string) => `DROP SCHEMA ${schema} CASCADE`],
    ['the table fences', (schema: string) => `DROP TABLE ${schema}.svc_sys_table_fences`],
    ['the batch log', (schema: string) => `DROP TABLE ${schema}.svc_sys_loaded_batches`],
    ['the seed table', (schema: string) => `DROP TABLE ${schema}.svc_sys_table_seeds`],
  ])('%s dropped: the next batch creates it again and loads', async (what, drop) => {
    const options = await seededThen((schema) => fixture.sql.query(drop(schema)).then(() => undefined));
    const next = changeBatch(customers, 100, 200);
    expect(await fixture.warehouse.isStale(next, options)).toBe(false);
    if (what === 'the schema') expect(await fixture.warehouse.ensureTable(customers, options)).toMatchObject({ created: true });

    expect(await fixture.load(next, ['U,2,Bob 2\nI,3,Cy\n'], options)).toEqual({ applied: true, rowCount: 2 });
    const expected = what === 'the schema' ? '2,Bob 2\n3,Cy\n' : '1,Ann\n2,Bob 2\n3,Cy\n';
    expect(await fixture.csv(`SELECT id, name FROM ${options.schema}.customers ORDER BY id`)).toBe(expected);
    expect(await fixture.warehouse.hasLoaded(next.batchId, options)).toBe(true);
    // A reseed, which records its seed in the seed table.
    expect(await fixture.load(seedBatch(customers, 'S2', 0, true, 2), ['9,Gus\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await fixture.csv(`SELECT id, name FROM ${options.schema}.customers ORDER BY id`)).toBe('9,Gus\n');
  });
});

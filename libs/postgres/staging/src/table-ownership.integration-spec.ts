import type { BatchDescriptor, TableDefinition } from '@svc/contracts';
import { ForeignTableError, isEngineError, type CsvChunks, type StagingConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { createPostgresStaging } from './postgres-staging';
import { portableTypeOfPostgres } from '@svc/postgres/common';

const A = '3d1f0c52-8a4e-4b7f-9c21-5e6a7b8c9d01';
const B = '3d1f0c52-8a4e-4b7f-9c21-5e6a7b8c9d02';

const customers: TableDefinition = {
  table: { schema: 'public', name: 'customers' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: portableTypeOfPostgres('integer'), nullable: false },
    { name: 'name', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true },
    { name: 'email', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};

const FOREIGN_REASON =
  'Staging table public.customers exists and was not created by this service: it is not written. Drop or rename it, or choose another staging database or schema';

function rows(csv: string): CsvChunks {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(csv, 'utf8');
    },
  };
}

function seed(replicationId: string, definition: TableDefinition, seedId: string, epoch = 1): BatchDescriptor {
  return {
    batchId: `${replicationId}/${definition.table.name}/seed/${seedId}/0`,
    replicationId,
    epoch,
    definition,
    body: { kind: 'seed', seedId, part: 0, final: true, startVersion: '100' },
  };
}

function changes(replicationId: string, definition: TableDefinition, from: number, to: number): BatchDescriptor {
  return {
    batchId: `${replicationId}/${definition.table.name}/changes/${from}-${to}`,
    replicationId,
    epoch: 1,
    definition,
    body: { kind: 'changes', fromVersion: String(from), toVersion: String(to) },
  };
}

/**
 * The stager writes only into staging tables it created (issue 19): a table of the same name that is someone
 * else's (say, `public.access_keys` of a database named as Staging) fails with a reason and is left as it is.
 */
describe('PostgreSQL staging: tables the service did not create', () => {
  let database: TempDatabase;
  let sql: Client;
  const connectors: StagingConnector[] = [];

  const connect = (): StagingConnector => {
    const connector = createPostgresStaging(database.url, { encrypt: false });
    connectors.push(connector);
    return connector;
  };
  const query = async <T extends object>(text: string): Promise<T[]> => (await sql.query<T & Record<string, unknown>>(text)).rows;

  beforeEach(async () => {
    database = await createTempDatabase('stg_owned');
    sql = new Client({ connectionString: database.url });
    await sql.connect();
  });

  afterEach(async () => {
    await Promise.all(connectors.splice(0).map((connector) => connector.close()));
    await sql.end();
    await database.drop();
  });

  it('refuses a user\'s table of the same name: its rows and columns stay, nothing is recorded for it', async () => {
    await sql.query(`CREATE TABLE public.customers (id integer PRIMARY KEY, secret text NOT NULL);
INSERT INTO public.customers VALUES (1, 'not the service''s'), (2, 'kept')`);
    const staging = connect();

    // As the stager does: the staleness check first (it creates the control schema), then ensureTable.
    expect(await staging.isStale(seed(A, customers, 's1'))).toBe(false);
    const ensuring = staging.ensureTable(customers);
    await expect(ensuring).rejects.toThrow(FOREIGN_REASON);
    const error: unknown = await ensuring.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ForeignTableError);
    expect(isEngineError(error, 'foreign-table')).toBe(true);
    // Every later try fails the same way: nothing it did the first time made the table the service's.
    await expect(connect().ensureTable(customers)).rejects.toThrow(FOREIGN_REASON);

    expect(await query('SELECT id, secret FROM public.customers ORDER BY id')).toEqual([
      { id: 1, secret: "not the service's" },
      { id: 2, secret: 'kept' },
    ]);
    expect(await staging.existingColumns(customers.table)).toEqual(['id', 'secret']);
    expect(await query('SELECT schema, name FROM svc_staging.owned_tables')).toEqual([]);
    expect(await query('SELECT schema, name FROM svc_staging.table_fences')).toEqual([]);
  });

  it('records a table it creates, and keeps writing it from a new connector (a restarted stager)', async () => {
    const first = connect();
    expect(await first.ensureTable(customers)).toEqual({ created: true, addedColumns: [] });
    expect(await first.applyBatch(seed(A, customers, 's1'), rows('1,Ann,ann@example.com\n'))).toEqual({ applied: true, rowCount: 1 });
    await first.close();
    connectors.splice(connectors.indexOf(first), 1);

    const restarted = connect();
    expect(await restarted.ensureTable({ ...customers, columns: [...customers.columns, { name: 'tier', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true }] })).toEqual({
      created: false,
      addedColumns: ['tier'],
    });
    expect(await restarted.applyBatch(changes(A, customers, 100, 200), rows('I,2,Bob,bob@example.com\n'))).toEqual({ applied: true, rowCount: 1 });
    expect(await query('SELECT id, name FROM public.customers ORDER BY id')).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
    ]);
    expect(await query('SELECT schema, name FROM svc_staging.owned_tables')).toEqual([{ schema: 'public', name: 'customers' }]);
  });

  it('lets a second replication share a table the first created (the record is per table)', async () => {
    const stagerOfA = connect();
    const stagerOfB = connect();
    await stagerOfA.ensureTable(customers);
    await stagerOfA.applyBatch(seed(A, customers, 'a1'), rows('1,Ann,\n'));

    expect(await stagerOfB.ensureTable(customers)).toEqual({ created: false, addedColumns: [] });
    expect(await stagerOfB.applyBatch(seed(B, customers, 'b1'), rows('2,Bob,\n'))).toEqual({ applied: true, rowCount: 1 });
    expect(await query('SELECT id FROM public.customers ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
  });

  /*
   * What a stager of the version before owned_tables left: its control tables (fences, seed records) name the
   * tables it created and wrote; owned_tables does not exist yet.
   */
  it.each([
    ['its fence', `INSERT INTO svc_staging.table_fences (replication_id, schema, name, epoch) VALUES ('${A}', 'public', 'customers', 1)`],
    ['its seed record', `INSERT INTO svc_staging.table_seeds (replication_id, schema, name, seed_id) VALUES ('${A}', 'public', 'customers', 's0')`],
  ])('adopts a table an earlier version created, named by %s, and records it', async (_what, namedBy) => {
    await sql.query(`CREATE SCHEMA svc_staging;
CREATE TABLE svc_staging.applied_batches (batch_id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE svc_staging.table_seeds (replication_id text NOT NULL DEFAULT '', schema text NOT NULL, name text NOT NULL, seed_id text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(), truncated boolean NOT NULL DEFAULT true, PRIMARY KEY (replication_id, schema, name));
CREATE TABLE svc_staging.table_fences (replication_id text NOT NULL, schema text NOT NULL, name text NOT NULL, epoch bigint NOT NULL,
  raised_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (replication_id, schema, name));
CREATE TABLE public.customers (id integer NOT NULL, name text, email text, PRIMARY KEY (id));
INSERT INTO public.customers VALUES (1, 'Ann', NULL);
${namedBy}`);
    const staging = connect();

    expect(await staging.ensureTable(customers)).toEqual({ created: false, addedColumns: [] });
    expect(await staging.applyBatch(changes(A, customers, 100, 200), rows('U,1,Ann 2,\nI,2,Bob,\n'))).toEqual({ applied: true, rowCount: 2 });
    expect(await query('SELECT id, name FROM public.customers ORDER BY id')).toEqual([
      { id: 1, name: 'Ann 2' },
      { id: 2, name: 'Bob' },
    ]);
    expect(await query('SELECT schema, name FROM svc_staging.owned_tables')).toEqual([{ schema: 'public', name: 'customers' }]);
  });

  it('a user\'s table next to the service\'s: only the service\'s is written', async () => {
    const staging = connect();
    await staging.ensureTable(customers);
    await sql.query(`CREATE TABLE public.orders (id integer PRIMARY KEY, total numeric); INSERT INTO public.orders VALUES (7, 1.5)`);
    const orders: TableDefinition = { ...customers, table: { schema: 'public', name: 'orders' } };

    await expect(staging.ensureTable(orders)).rejects.toThrow('Staging table public.orders exists and was not created by this service');
    expect(await staging.ensureTable(customers)).toEqual({ created: false, addedColumns: [] });
    expect(await query('SELECT id, total FROM public.orders')).toEqual([{ id: 7, total: '1.5' }]);
  });
});

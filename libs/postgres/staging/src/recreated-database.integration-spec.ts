import type { BatchDescriptor, TableDefinition } from '@svc/contracts';
import { OwnObjectMissingError, type CsvChunks, type StagingConnector } from '@svc/engines';
import { SAMPLE_PEOPLE_TABLE, TEST_POSTGRES_URL, createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { createPostgresStaging } from './postgres-staging';

const REPLICATION_ID = '0c7d4b8e-5a61-4f0e-9d3b-7e2a1c6f4b90';
const people: TableDefinition = SAMPLE_PEOPLE_TABLE;

function rows(csv: string): CsvChunks {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(csv, 'utf8');
    },
  };
}

function seedPart0(seedId: string, epoch = 1): BatchDescriptor {
  return {
    batchId: `${REPLICATION_ID}/public.people/seed/${seedId}/0`,
    replicationId: REPLICATION_ID,
    epoch,
    definition: people,
    body: { kind: 'seed', seedId, part: 0, final: true, startVersion: '100' },
  };
}

function changes(from: number, to: number, epoch = 1): BatchDescriptor {
  return {
    batchId: `${REPLICATION_ID}/public.people/changes/${from}-${to}`,
    replicationId: REPLICATION_ID,
    epoch,
    definition: people,
    body: { kind: 'changes', fromVersion: String(from), toVersion: String(to) },
  };
}

async function run(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** What an operator (or the demo's second run) does: the database goes, sessions and all, and comes back empty. */
async function recreate(database: TempDatabase): Promise<void> {
  await run(TEST_POSTGRES_URL, `DROP DATABASE "${database.name}" WITH (FORCE)`);
  await run(TEST_POSTGRES_URL, `CREATE DATABASE "${database.name}"`);
}

/**
 * The connector caches "the control schema exists" per database. A staging database recreated under a
 * running stager, its control schema dropped, or one control table dropped: the next batch re-creates what
 * is missing and applies, without a restart, whichever operation meets the loss first.
 */
describe('PostgreSQL staging after its database or control objects were recreated', () => {
  let database: TempDatabase;
  let staging: StagingConnector;

  beforeEach(async () => {
    database = await createTempDatabase('stg_recreated');
    staging = createPostgresStaging(database.url, { encrypt: false });
    await staging.ensureTable(people);
    expect(await staging.applyBatch(seedPart0('s1'), rows('1,Ann\n2,Bob\n'))).toEqual({ applied: true, rowCount: 2 });
  });

  afterEach(async () => {
    await staging.close();
    await database.drop();
  });

  const people_ = () => run(database.url, 'SELECT id, name FROM public.people ORDER BY id');

  it('a recreated database: the next batch (checked for staleness first, as the stager does) applies', async () => {
    await recreate(database);

    expect(await staging.isStale(seedPart0('s2'))).toBe(false);
    expect(await staging.ensureTable(people)).toEqual({ created: true, addedColumns: [] });
    expect(await staging.applyBatch(seedPart0('s2'), rows('7,Eve\n'))).toEqual({ applied: true, rowCount: 1 });
    expect(await people_()).toEqual([{ id: 7, name: 'Eve' }]);
    expect(await staging.hasApplied(seedPart0('s2').batchId)).toBe(true);
  });

  it('a recreated database: each operation on its own finds the control schema gone and creates it again', async () => {
    await recreate(database);
    expect(await staging.hasApplied(seedPart0('s1').batchId)).toBe(false);

    await recreate(database);
    expect(await staging.forgetAppliedBatches(new Date())).toBe(0);

    await recreate(database);
    await staging.ensureTable(people);
    expect(await staging.applyBatch(seedPart0('s2'), rows('7,Eve\n'))).toEqual({ applied: true, rowCount: 1 });
  });

  it.each([
    ['the control schema', 'DROP SCHEMA svc_staging CASCADE'],
    ['the table fences', 'DROP TABLE svc_staging.table_fences'],
    ['the batch log', 'DROP TABLE svc_staging.applied_batches'],
    ['the seed table', 'DROP TABLE svc_staging.table_seeds'],
  ])('%s dropped: the next batch creates it again and applies', async (_what, drop) => {
    await run(database.url, drop);

    expect(await staging.applyBatch(changes(100, 200), rows('U,2,Bob 2\nI,3,Cy\n'))).toEqual({ applied: true, rowCount: 2 });
    expect(await people_()).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob 2' },
      { id: 3, name: 'Cy' },
    ]);
    expect(await staging.applyBatch(seedPart0('s2'), rows('7,Eve\n'))).toEqual({ applied: true, rowCount: 1 });
    expect(await staging.applyBatch(changes(100, 200), rows('U,2,Bob 2\nI,3,Cy\n'))).toEqual({ applied: false, rowCount: 0 });
  });

  it('a staging table dropped after its rows were read fails with a retryable OwnObjectMissingError, not a bare 42P01', async () => {
    const dropping = new Client({ connectionString: database.url });
    await dropping.connect();
    try {
      // Dropped while the batch reads its rows: they cannot be read twice, so the batch is not retried in place.
      const droppedMidBatch: CsvChunks = {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from('U,2,Bob 2\n', 'utf8');
          await dropping.query('DROP TABLE public.people');
        },
      };
      await dropping.query('SET lock_timeout = 0');
      const applying = staging.applyBatch(changes(100, 200), droppedMidBatch);
      await expect(applying).rejects.toBeInstanceOf(OwnObjectMissingError);
    } finally {
      await dropping.end();
    }
    expect(await staging.ensureTable(people)).toEqual({ created: true, addedColumns: [] });
  });
});

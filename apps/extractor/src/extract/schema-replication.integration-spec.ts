import { randomUUID } from 'node:crypto';
import { PipelineSubjects, type BatchExtracted, type ExtractRequested, type TableRef } from '@svc/contracts';
import { readRowChunks } from '@svc/messaging';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { startExtractorHarness } from '../testing/extractor-harness';

const SCHEMA_FROZEN = '2a6f0c1e-7b3d-4c5a-9e8f-1d2c3b4a5f60';
const SCHEMA_REPLICATED = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const people: TableRef = { schema: 'public', name: 'people' };
const fresh: TableRef = { schema: 'public', name: 'fresh' };

/** SchemaReplication=false: the extractor reads only the columns the staging table already has. */
describe('extractor: SchemaReplication', () => {
  let sourceDb: TempDatabase;
  let stagingDb: TempDatabase;
  let source: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>;

  async function extract(replicationId: string, table: TableRef, kind: ExtractRequested['kind'], fromVersion?: string): Promise<{ event: BatchExtracted; csv: string }> {
    const workId = randomUUID();
    const request: ExtractRequested = {
      workId,
      replicationId,
      table,
      kind,
      track: true,
      ...(fromVersion !== undefined && { fromVersion }),
      batchLimit: 1000,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
    await harness.publisher.publish(PipelineSubjects.extractRequested, request, workId);
    await waitUntil(async () => harness.resultsOf(workId).length > 0, 20000, `the batch extracted for work ${workId}`);
    const [event] = harness.resultsOf(workId);
    const chunks: Buffer[] = [];
    for await (const chunk of readRowChunks(harness.connection, event.rowsSubject, event.chunkCount)) chunks.push(chunk);
    return { event, csv: Buffer.concat(chunks).toString('utf8') };
  }

  const columnsOf = (event: BatchExtracted) => event.batch.definition.columns.map((column) => column.name);
  const sortedLines = (csv: string) => csv.split('\n').filter((line) => line !== '').sort();

  beforeAll(async () => {
    sourceDb = await createTempDatabase('svc_extract_schema_src');
    stagingDb = await createTempDatabase('svc_extract_schema_stg');
    source = new Client({ connectionString: sourceDb.url });
    await source.connect();
    await source.query(`
      create table people (region text, id integer, name text, primary key (region, id));
      insert into people values ('eu', 1, 'Ann'), ('us', 2, 'Bob');
      create table fresh (id integer primary key, label text);
      insert into fresh values (1, 'one');
    `);
    // Staging has people as the first seed made it; then a column is added in the source.
    const staging = new Client({ connectionString: stagingDb.url });
    await staging.connect();
    await staging.query('create table people (region text not null, id integer not null, name text, primary key (region, id))');
    await staging.end();
    await source.query("alter table people add column nickname text; update people set nickname = 'Annie' where id = 1");

    const staged = (schemaReplication: boolean) =>
      sampleReplicationConfig({ schemaReplication, source: { connectionString: sourceDb.url }, staging: { connectionString: stagingDb.url } });
    harness = await startExtractorHarness({
      testName: 'schema-replication-test',
      configs: new Map([
        [SCHEMA_FROZEN, staged(false)],
        [SCHEMA_REPLICATED, staged(true)],
      ]),
    });
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await source?.end();
    await sourceDb?.drop();
    await stagingDb?.drop();
  });

  it('off: a seed reads only the columns staging has, and says so in the batch definition', async () => {
    const { event, csv } = await extract(SCHEMA_FROZEN, people, 'seed');
    expect(columnsOf(event)).toEqual(['region', 'id', 'name']);
    expect(event.batch.definition.primaryKey).toEqual(['region', 'id']);
    expect(sortedLines(csv)).toEqual(['eu,1,Ann', 'us,2,Bob']);
  });

  it('off: change reads leave the added column out too', async () => {
    const seed = await extract(SCHEMA_FROZEN, people, 'seed');
    const startVersion = seed.event.batch.body.kind === 'seed' ? seed.event.batch.body.startVersion : '';
    const written = await source.query<{ xid: string }>("update people set name = 'Bobby', nickname = 'B' where id = 2 returning pg_current_xact_id()::text AS xid");
    // A change is read once every transaction older than it has ended, server-wide (DESIGN §5.2): another
    // test's open transaction on the shared server must not turn this read into an empty one.
    const xid = BigInt(written.rows[0]?.xid ?? '0');
    await waitUntil(
      async () => BigInt((await source.query<{ xmin: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin')).rows[0]?.xmin ?? '0') > xid,
      60000,
      'older transactions on the server to end',
    );
    const { event, csv } = await extract(SCHEMA_FROZEN, people, 'changes', startVersion);
    expect(columnsOf(event)).toEqual(['region', 'id', 'name']);
    expect(sortedLines(csv)).toEqual(['U,us,2,Bobby']);
  }, 120000);

  it('off: a table staging does not have yet is read whole', async () => {
    const { event, csv } = await extract(SCHEMA_FROZEN, fresh, 'seed');
    expect(columnsOf(event)).toEqual(['id', 'label']);
    expect(sortedLines(csv)).toEqual(['1,one']);
  });

  it('on: the added column is read, so that staging and warehouse gain it', async () => {
    const { event, csv } = await extract(SCHEMA_REPLICATED, people, 'seed');
    expect(columnsOf(event)).toEqual(['region', 'id', 'name', 'nickname']);
    expect(sortedLines(csv)).toEqual(['eu,1,Ann,Annie', 'us,2,Bobby,B']);
  });
});

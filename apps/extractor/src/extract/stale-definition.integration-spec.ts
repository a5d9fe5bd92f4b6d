import { randomUUID } from 'node:crypto';
import { PipelineSubjects, type BatchExtracted, type ExtractRequested, type TableRef } from '@svc/contracts';
import { readRowChunks } from '@svc/messaging';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, waitForLockWaiters, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { startExtractorHarness } from '../testing/extractor-harness';
import { waitForReadHorizon } from '../testing/source-reads';

const REPLICATION = '5b0e8c1a-3f2d-4e6b-9a7c-2d1e0f3a4b5c';
const people: TableRef = { schema: 'public', name: 'people' };

/**
 * A column added (and filled) between the extractor describing a table and opening its read must not be
 * read away: the read's snapshot already holds the new values, so the stale definition is refused and the
 * table described again.
 */
describe('extractor: a table altered while its changes are read', () => {
  let sourceDb: TempDatabase;
  let stagingDb: TempDatabase;
  let source: Client;
  let locker: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>;

  function requestOf(kind: ExtractRequested['kind'], fromVersion?: string): ExtractRequested {
    return {
      workId: randomUUID(),
      replicationId: REPLICATION,
      table: people,
      kind,
      track: true,
      ...(fromVersion !== undefined && { fromVersion }),
      batchLimit: 1000,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
  }

  async function resultOf(request: ExtractRequested): Promise<{ event: BatchExtracted; csv: string }> {
    await waitUntil(async () => harness.resultsOf(request.workId).length > 0, 30000, `the batch extracted for work ${request.workId}`);
    const [event] = harness.resultsOf(request.workId);
    const chunks: Buffer[] = [];
    for await (const chunk of readRowChunks(harness.connection, event.rowsSubject, event.chunkCount)) chunks.push(chunk);
    return { event, csv: Buffer.concat(chunks).toString('utf8') };
  }

  beforeAll(async () => {
    sourceDb = await createTempDatabase('svc_extract_stale_src');
    stagingDb = await createTempDatabase('svc_extract_stale_stg');
    source = new Client({ connectionString: sourceDb.url });
    locker = new Client({ connectionString: sourceDb.url });
    await Promise.all([source.connect(), locker.connect()]);
    await source.query(`create table people (id integer primary key, name text); insert into people values (1, 'Ann'), (2, 'Bob')`);
    harness = await startExtractorHarness({
      testName: 'stale-definition-test',
      configs: new Map([[REPLICATION, sampleReplicationConfig({ source: { connectionString: sourceDb.url }, staging: { connectionString: stagingDb.url } })]]),
    });
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await Promise.allSettled([source?.end(), locker?.end()]);
    await sourceDb?.drop();
    await stagingDb?.drop();
  });

  it('reads the changes with the column added after the table was described', async () => {
    const seedRequest = requestOf('seed');
    await harness.publisher.publish(PipelineSubjects.extractRequested, seedRequest, seedRequest.workId);
    const seed = await resultOf(seedRequest);
    const startVersion = seed.event.batch.body.kind === 'seed' ? seed.event.batch.body.startVersion : '';

    // Hold the extractor after it described the table: its read locks the table first, which waits here.
    await locker.query('begin');
    await locker.query('lock table people in access exclusive mode');
    const changesRequest = requestOf('changes', startVersion);
    await harness.publisher.publish(PipelineSubjects.extractRequested, changesRequest, changesRequest.workId);
    await waitForLockWaiters(locker, 1, 'the extractor to wait for the table');

    await locker.query('alter table people add column mood text');
    const written = await locker.query<{ xid: string }>("update people set mood = 'calm' where id = 2 returning pg_current_xact_id()::text as xid");
    const xid = written.rows[0]?.xid ?? '0';
    // The read must see the update: wait until no transaction older than it is open on the shared server.
    await waitForReadHorizon(source, xid, '>=');
    await locker.query('commit');
    const afterCommit = await source.query<{ snapshot: string }>('select pg_current_snapshot()::text as snapshot');

    const { event, csv } = await resultOf(changesRequest);
    expect(event.batch.definition.columns.map((column) => column.name)).toEqual(['id', 'name', 'mood']);
    const lines = csv.split('\n').filter((line) => line !== '');
    // A rare CI failure read nothing here; say what the read and the change table held when it does.
    if (lines.length !== 1) {
      throw new Error(`read ${JSON.stringify(lines)} for the update in transaction ${xid} (snapshot ${afterCommit.rows[0]?.snapshot ?? '?'} after its commit): ${await readDiagnostics(event)}`);
    }
    expect(lines).toEqual(['U,2,Bob,calm']);
  }, 120000);

  async function readDiagnostics(event: BatchExtracted): Promise<string> {
    const records = await source.query("select svc_op, svc_xid::text as xid, id from svc_ct.\"public.people\" order by svc_seq").catch((error: Error) => ({ rows: error.message }));
    const tracked = await source.query('select to_jsonb(t) as row from svc_ct.tracked_tables t').catch((error: Error) => ({ rows: error.message }));
    const failures = await source.query('select to_jsonb(f) as row from svc_ct.capture_failures f').catch((error: Error) => ({ rows: error.message }));
    // Which sessions of the shared server held back the read's horizon (an xid or snapshot older than the update's).
    const holders = await source.query(
      `select datname, state, backend_xid::text as xid, backend_xmin::text as xmin, left(query, 120) as query, now() - xact_start as age
         from pg_stat_activity where backend_xid is not null or backend_xmin is not null`,
    );
    return JSON.stringify({ body: event.batch.body, records: records.rows, tracked: tracked.rows, failures: failures.rows, holders: holders.rows });
  }
});

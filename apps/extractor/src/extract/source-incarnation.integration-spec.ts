import { randomUUID } from 'node:crypto';
import { PipelineSubjects, type BatchExtracted, type ExtractRequested, type TableRef, type WorkFailed } from '@svc/contracts';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, waitUntil, type TempDatabase } from '@svc/testing';
import type { Subscription } from 'nats';
import { Client } from 'pg';
import { startExtractorHarness } from '../testing/extractor-harness';

const REPLICATION = '7c1e9d2b-4a3f-4b6c-8d7e-3f2a1b0c9d8e';
const orders: TableRef = { schema: 'public', name: 'orders' };

/**
 * Issue 37, item 2: every watermark carries the source incarnation it was read in, and a change read whose
 * watermark names another one (the cluster restored from a backup whose transaction ids have passed the watermark
 * again, or another cluster) fails asking a reseed instead of reading changes that are not the ones it missed.
 */
describe('extractor: the source incarnation travels with every watermark', () => {
  let sourceDb: TempDatabase;
  let stagingDb: TempDatabase;
  let source: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>;
  let failures: Subscription;
  const failed: WorkFailed[] = [];

  function requestOf(kind: ExtractRequested['kind'], from?: { version: string; incarnation?: string }): ExtractRequested {
    return {
      workId: randomUUID(),
      replicationId: REPLICATION,
      table: orders,
      kind,
      track: true,
      ...(from !== undefined && { fromVersion: from.version }),
      ...(from?.incarnation !== undefined && { fromIncarnation: from.incarnation }),
      batchLimit: 1000,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
  }

  async function extracted(request: ExtractRequested): Promise<BatchExtracted> {
    await harness.publisher.publish(PipelineSubjects.extractRequested, request, request.workId);
    await waitUntil(async () => harness.resultsOf(request.workId).length > 0, 30000, `the batch extracted for work ${request.workId}`);
    const [event] = harness.resultsOf(request.workId);
    if (event === undefined) throw new Error('no batch');
    return event;
  }

  beforeAll(async () => {
    sourceDb = await createTempDatabase('svc_extract_incarnation_src');
    stagingDb = await createTempDatabase('svc_extract_incarnation_stg');
    source = new Client({ connectionString: sourceDb.url });
    await source.connect();
    await source.query('create table orders (id integer primary key, amount numeric); insert into orders values (1, 10), (2, 20)');
    harness = await startExtractorHarness({
      testName: 'source-incarnation-test',
      configs: new Map([[REPLICATION, sampleReplicationConfig({ source: { connectionString: sourceDb.url }, staging: { connectionString: stagingDb.url } })]]),
    });
    failures = harness.connection.subscribe(PipelineSubjects.workFailed, { callback: (_error, message) => failed.push(message.json<WorkFailed>()) });
  }, 60000);

  afterAll(async () => {
    failures?.unsubscribe();
    await harness?.stop();
    await source?.end();
    await sourceDb?.drop();
    await stagingDb?.drop();
  });

  it('seeds and reads changes recording the cluster they were read in, and reseeds a watermark read in another', async () => {
    const { system_identifier: systemIdentifier } = (await source.query<{ system_identifier: string }>('select system_identifier::text from pg_control_system()')).rows[0] ?? {};
    const seed = await extracted(requestOf('seed'));
    if (seed.batch.body.kind !== 'seed') throw new Error('expected a seed batch');
    const { startVersion, sourceIncarnation } = seed.batch.body;
    expect(sourceIncarnation).toMatch(new RegExp(`^${systemIdentifier} timeline [1-9][0-9]*$`));

    const written = await source.query<{ xid: string }>('update orders set amount = 11 where id = 1 returning pg_current_xact_id()::text as xid');
    // A change is read once every transaction older than it has ended, server-wide: another suite's open transaction
    // on the shared server must not turn this read into an empty one (which the extractor reports loaded at once).
    const xid = BigInt(written.rows[0]?.xid ?? '0');
    await waitUntil(
      async () => BigInt((await source.query<{ xmin: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as xmin')).rows[0]?.xmin ?? '0') > xid,
      60000,
      'older transactions on the server to end',
    );
    const changes = await extracted(requestOf('changes', { version: startVersion, ...(sourceIncarnation !== undefined && { incarnation: sourceIncarnation }) }));
    expect(changes.batch.body).toMatchObject({ kind: 'changes', fromVersion: startVersion, sourceIncarnation });
    expect(changes.rowCount).toBe(1);

    // The same watermark, stored as read in another cluster (a restore into a new one, or a dump loaded elsewhere).
    const elsewhere = requestOf('changes', { version: startVersion, incarnation: '7000000000000000001 timeline 1' });
    await harness.publisher.publish(PipelineSubjects.extractRequested, elsewhere, elsewhere.workId);
    await waitUntil(async () => failed.some((failure) => failure.workId === elsewhere.workId), 30000, 'the change read to fail');
    const failure = failed.find((each) => each.workId === elsewhere.workId);
    expect(failure).toMatchObject({ reseed: true, retryable: true, scope: 'table', stage: 'extract' });
    expect(failure?.message).toMatch(/\[public\]\.\[orders\] is not the one its watermark was read from \(7000000000000000001 timeline 1 then, \d+ timeline \d+ now/);
    expect(harness.resultsOf(elsewhere.workId)).toEqual([]);
  }, 120000);
});

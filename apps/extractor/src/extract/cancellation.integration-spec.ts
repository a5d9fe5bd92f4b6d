import { randomUUID } from 'node:crypto';
import { PipelineSubjects, type ExtractRequested, type TableRef } from '@svc/contracts';
import { publishWorkCancelled } from '@svc/messaging';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { startExtractorHarness } from '../testing/extractor-harness';

const REPLICATION_ID = '3b9d7c1e-5f2a-4e6b-8c0d-1a2b3c4d5e6f';
const big: TableRef = { schema: 'public', name: 'big' };
const small: TableRef = { schema: 'public', name: 'small' };
/** About 20 MB: about 20 parts of SEED_PART_MB=1. */
const BIG_ROWS = 20_000;

/** The registry cancels work that ran past its timeout; the extractor drops it, or stops its seed between parts. */
describe('extractor: cancelled work', () => {
  let sourceDb: TempDatabase;
  let source: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>;
  const logLines: string[] = [];

  async function request(workId: string, table: TableRef): Promise<void> {
    const message: ExtractRequested = {
      workId,
      replicationId: REPLICATION_ID,
      table,
      kind: 'seed',
      track: false,
      batchLimit: 1000,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
    await harness.publisher.publish(PipelineSubjects.extractRequested, message, workId);
  }

  function cancel(workId: string, table: TableRef): void {
    publishWorkCancelled(harness.connection, { workId, replicationId: REPLICATION_ID, table, reason: 'ran past its timeout', cancelledAt: new Date().toISOString() });
  }

  beforeAll(async () => {
    sourceDb = await createTempDatabase('svc_extract_cancel_src');
    source = new Client({ connectionString: sourceDb.url });
    await source.connect();
    await source.query(`
      create table big (id integer primary key, pad text);
      insert into big select g, repeat('x', 1000) from generate_series(1, ${BIG_ROWS}) as g;
      create table small (id integer primary key);
      insert into small values (1), (2);
    `);
    harness = await startExtractorHarness({
      testName: 'cancellation-test',
      configs: new Map([[REPLICATION_ID, sampleReplicationConfig({ source: { connectionString: sourceDb.url } })]]),
      // The registry's timeout strikes while the seed is being read: right after its first part.
      onResult: (event) => {
        if (event.batch.definition.table.name === big.name && event.batch.body.kind === 'seed' && event.batch.body.part === 0) cancel(event.workId, big);
      },
      environment: { SEED_PART_MB: '1' },
      logSink: (line) => logLines.push(line),
    });
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await source?.end();
    await sourceDb?.drop();
  });

  it('acknowledges and drops a request whose work was cancelled before it was taken', async () => {
    const cancelled = randomUUID();
    const live = randomUUID();
    cancel(cancelled, small);
    await harness.connection.flush();
    await request(cancelled, small);
    await request(live, small);
    await waitUntil(async () => harness.resultsOf(live).length === 1, 20000, 'the live seed');
    await harness.idle();
    expect(harness.resultsOf(cancelled)).toEqual([]);
    expect(logLines.some((line) => line.includes('dropped a message of cancelled work') && line.includes(cancelled))).toBe(true);
  });

  it('stops a seed between parts once its work is cancelled: no final part, and the snapshot is closed', async () => {
    const workId = randomUUID();
    await request(workId, big);
    await waitUntil(async () => harness.resultsOf(workId).length > 0, 30000, 'the first part of the seed');
    await harness.idle();
    await waitUntil(async () => logLines.some((line) => line.includes('seed stopped: its work was cancelled') && line.includes(workId)), 10000, 'the seed to stop');

    const parts = harness.resultsOf(workId).map((event) => (event.batch.body.kind === 'seed' ? event.batch.body : null));
    expect(parts.length).toBeLessThan(BIG_ROWS / 1000);
    expect(parts.every((part) => part !== null && !part.final)).toBe(true);
    // The snapshot's COPY is not left hanging on a connection that nobody reads.
    await waitUntil(
      async () => {
        const result = await source.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'COPY%' AND state <> 'idle'`,
        );
        return result.rows[0]?.n === 0;
      },
      10000,
      'the snapshot COPY to end',
    );
  });
});

import { randomUUID } from 'node:crypto';
import { PipelineSubjects, type BatchExtracted, type ChangeBatch, type ExtractRequested, type TableRef } from '@svc/contracts';
import { readRowChunks } from '@svc/messaging';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { startExtractorHarness } from '../testing/extractor-harness';
import { seededFrom, writesVisible } from '../testing/source-reads';
import { CHANGE_BATCHES_PER_WORK } from './extract.service';

const REPLICATION = '8d2c6e4a-1b3f-4a5d-9e7c-0f1a2b3c4d5e';
const accounts: TableRef = { schema: 'public', name: 'accounts' };
/** One more transaction than a work reads, plus one: the next work must read the rest. */
const TRANSACTIONS = CHANGE_BATCHES_PER_WORK + 2;

/**
 * A backlog over ChangeTrackingBatchLimit is read by one unit of work as a chain of change batches, each
 * naming the one it follows, the next read while the last is applied (issue 23, goal 2); no transaction is
 * split, and a work reads at most CHANGE_BATCHES_PER_WORK of them.
 */
describe('extractor: a change backlog over the batch limit', () => {
  let sourceDb: TempDatabase;
  let stagingDb: TempDatabase;
  let source: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>;

  function requestOf(kind: ExtractRequested['kind'], batchLimit: number, fromVersion?: string): ExtractRequested {
    return {
      workId: randomUUID(),
      replicationId: REPLICATION,
      table: accounts,
      kind,
      track: true,
      ...(fromVersion !== undefined && { fromVersion }),
      batchLimit,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
  }

  async function csvOf(event: BatchExtracted): Promise<string[]> {
    const chunks: Buffer[] = [];
    for await (const chunk of readRowChunks(harness.connection, event.rowsSubject, event.chunkCount)) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8').split('\n').filter((line) => line !== '');
  }

  /** The work's batches once its last (the one not followed by more) has been announced. */
  async function batchesOf(request: ExtractRequested): Promise<Array<{ event: BatchExtracted; body: ChangeBatch }>> {
    const changesOf = () =>
      harness.resultsOf(request.workId).flatMap((event) => (event.batch.body.kind === 'changes' ? [{ event, body: event.batch.body }] : []));
    await waitUntil(async () => changesOf().some(({ body }) => body.final !== false), 30000, `the last batch of work ${request.workId}`);
    return changesOf();
  }

  /** Seeds the table (tracking it) and returns the version its changes are read from. */
  const seeded = (): Promise<string> => seededFrom(harness, requestOf('seed', 1000));

  beforeAll(async () => {
    sourceDb = await createTempDatabase('svc_extract_backlog_src');
    stagingDb = await createTempDatabase('svc_extract_backlog_stg');
    source = new Client({ connectionString: sourceDb.url });
    await source.connect();
    await source.query(`create table accounts (id integer primary key, balance integer not null)`);
    await source.query(`insert into accounts select id, 0 from generate_series(1, ${TRANSACTIONS}) id`);
    harness = await startExtractorHarness({
      testName: 'backlog-test',
      configs: new Map([[REPLICATION, sampleReplicationConfig({ source: { connectionString: sourceDb.url }, staging: { connectionString: stagingDb.url } })]]),
    });
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await source?.end();
    await sourceDb?.drop();
    await stagingDb?.drop();
  });

  it('reads one batch per limit-sized window, chained in order, and leaves what is past the work\'s last batch to the next work', async () => {
    const startVersion = await seeded();

    // One transaction per account, one change record each: with a limit of 1, one window each.
    let lastXid = '0';
    for (let id = 1; id <= TRANSACTIONS; id += 1) {
      const written = await source.query<{ xid: string }>('update accounts set balance = $1 where id = $1 returning pg_current_xact_id()::text as xid', [id]);
      lastXid = written.rows[0]?.xid ?? lastXid;
    }
    await writesVisible(source, lastXid);

    const first = requestOf('changes', 1, startVersion);
    await harness.publisher.publish(PipelineSubjects.extractRequested, first, first.workId);
    const batches = await batchesOf(first);
    expect(batches).toHaveLength(CHANGE_BATCHES_PER_WORK);
    batches.forEach(({ body }, index) => {
      const before = batches[index - 1]?.body;
      expect(body.after).toBe(before?.fromVersion);
      expect(body.fromVersion).toBe(before?.toVersion ?? startVersion);
      expect(body.final).toBe(index === batches.length - 1 ? undefined : false);
    });
    const rows = await Promise.all(batches.map(({ event }) => csvOf(event)));
    expect(rows).toEqual(batches.map((_, index) => [`U,${index + 1},${index + 1}`]));

    // The rest of the backlog: the next work starts where the last one's final batch ended.
    const last = batches[batches.length - 1]?.body;
    const second = requestOf('changes', 1, last?.toVersion);
    await harness.publisher.publish(PipelineSubjects.extractRequested, second, second.workId);
    const rest = await batchesOf(second);
    expect(rest.map(({ body }) => ({ after: body.after, final: body.final }))).toEqual([
      { after: undefined, final: false },
      { after: last?.toVersion, final: undefined },
    ]);
    expect(await Promise.all(rest.map(({ event }) => csvOf(event)))).toEqual([[`U,${TRANSACTIONS - 1},${TRANSACTIONS - 1}`], [`U,${TRANSACTIONS},${TRANSACTIONS}`]]);
  }, 120000);

  it('reads a backlog within the limit as one batch, as before', async () => {
    const startVersion = await seeded();
    const written = await source.query<{ xid: string }>('update accounts set balance = balance + 100 where id <= 3 returning pg_current_xact_id()::text as xid');
    await writesVisible(source, written.rows[0]?.xid ?? '0');

    const request = requestOf('changes', 1000, startVersion);
    await harness.publisher.publish(PipelineSubjects.extractRequested, request, request.workId);
    const batches = await batchesOf(request);
    expect(batches.map(({ body }) => ({ after: body.after, final: body.final }))).toEqual([{ after: undefined, final: undefined }]);
    const [only] = batches;
    expect(only && (await csvOf(only.event)).sort()).toEqual(['U,1,101', 'U,2,102', 'U,3,103']);
  }, 120000);

  // After a NATS restart a work's delivery can pass its ack deadline while its first attempt still reads: two attempts
  // read the same window, so the same batch id. Sharing a rows subject, their purges and chunks interleaved and the
  // subject held both publications' chunks, which no read of either batch could take (the MariaDB kill test froze).
  it('publishes two attempts of one work that read the same window under subjects of their own, each readable', async () => {
    const startVersion = await seeded();
    // Two transactions and a limit of one: each attempt's first window ends at the second transaction, whatever else
    // the shared server runs meanwhile (a window to the read horizon would differ between two reads).
    const first = await source.query<{ xid: string; balance: number }>('update accounts set balance = balance + 7 where id = 1 returning balance, pg_current_xact_id()::text as xid');
    const second = await source.query<{ xid: string }>('update accounts set balance = balance + 7 where id = 2 returning pg_current_xact_id()::text as xid');
    await writesVisible(source, second.rows[0]?.xid ?? '0');

    const request = requestOf('changes', 1, startVersion);
    const again: ExtractRequested = { ...request, epoch: request.epoch + 1 };
    await Promise.all([
      harness.publisher.publish(PipelineSubjects.extractRequested, request, request.workId),
      harness.publisher.publish(PipelineSubjects.extractRequested, again, `${request.workId}/again`),
    ]);
    const firstWindows = () => harness.resultsOf(request.workId).filter((event) => event.batch.body.kind === 'changes' && event.batch.body.fromVersion === startVersion);
    await waitUntil(async () => firstWindows().length === 2, 30000, 'both attempts\' first batches');
    const events = firstWindows();
    expect(new Set(events.map((event) => event.batch.epoch))).toEqual(new Set([request.epoch, again.epoch]));
    expect(new Set(events.map((event) => event.batch.batchId)).size).toBe(1);
    expect(new Set(events.map((event) => event.rowsSubject)).size).toBe(2);
    for (const event of events) expect(await csvOf(event)).toEqual([`U,1,${first.rows[0]?.balance}`]);
  }, 120000);
});

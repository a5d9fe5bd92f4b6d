import type { JetStreamManager, NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, isExtractRequested } from '@svc/contracts';
import { PipelinePublisher } from './pipeline-publisher';
import { PipelineWorker } from './pipeline-worker';
import { ensurePipelineStreams } from './pipeline-streams';
import { publishRowChunks, readRowChunks, rowsSubjectOf } from './row-chunks';
import { extractRequest, startJetStreamTestServer, workStreamMessageCount, type JetStreamTestServer } from './testing/jetstream-test-kit';
import { WorkAbortedError } from './work-errors';

/** How long the server stays down: a publish alone would give up after its own 5 s timeout. */
const OUTAGE_MS = 3000;

function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

async function* chunksOf(count: number, bytes: number): AsyncGenerator<Buffer> {
  for (let index = 0; index < count; index += 1) yield Buffer.alloc(bytes, 97 + (index % 26));
}

describe('JetStream publishes while NATS is unreachable', () => {
  let server: JetStreamTestServer;
  let connection: NatsConnection;
  let manager: JetStreamManager;

  beforeEach(async () => {
    server = await startJetStreamTestServer();
    connection = await server.connect('test-outage');
    manager = await server.manager();
    await ensurePipelineStreams(connection);
  }, 30000);

  afterEach(async () => {
    await server.up();
    await server.stop();
  });

  it('a work message published while the server is down is stored once after it is back', async () => {
    await server.down();
    const publishing = new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, extractRequest('work-down'), 'work-down');
    const settled = publishing.then(() => 'published', (error: unknown) => error);
    await pause(OUTAGE_MS);
    await server.up();

    expect(await settled).toBe('published');
    expect(await workStreamMessageCount(manager)).toBe(1);
  }, 60000);

  it('row chunks published across an outage are all stored once, in order', async () => {
    const subject = rowsSubjectOf('batch-across-outage', 'work-across-outage');
    await server.down();
    const publishing = publishRowChunks(connection, subject, chunksOf(12, 1000), { maxChunkBytes: 1000, maxInFlight: 4 });
    await pause(OUTAGE_MS);
    await server.up();

    expect(await publishing).toEqual({ chunkCount: 12, byteCount: 12000 });
    expect((await manager.streams.info(PipelineStreams.rows.name)).state.messages).toBe(12);
    const read: Buffer[] = [];
    for await (const chunk of readRowChunks(connection, subject, 12)) read.push(chunk);
    expect(read.map((chunk) => String.fromCharCode(chunk[0] ?? 0))).toEqual([...'abcdefghijkl']);
  }, 60000);

  it('a subject that no stream takes fails at once, not after the outage wait', async () => {
    await manager.streams.delete(PipelineStreams.work.name);
    const startedAt = Date.now();

    await expect(new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, extractRequest('work-nowhere'), 'work-nowhere')).rejects.toThrow(
      `cannot publish to ${PipelineSubjects.extractRequested}`,
    );
    expect(Date.now() - startedAt).toBeLessThan(3000);
  });

  it('a message larger than the server takes fails at once', async () => {
    const tooLarge = { ...extractRequest('work-too-large'), replicationId: 'x'.repeat(connection.info?.max_payload ?? 1024 * 1024) };
    const startedAt = Date.now();

    await expect(new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, tooLarge, 'work-too-large')).rejects.toThrow(/MAX_PAYLOAD_EXCEEDED|payload/i);
    expect(Date.now() - startedAt).toBeLessThan(3000);
  });

  it('the worker shutting down ends the wait at once with WorkAbortedError', async () => {
    const shutdown = new AbortController();
    await server.down();
    const publishing = new PipelinePublisher(connection, { shutdown: shutdown.signal }).publish(PipelineSubjects.extractRequested, extractRequest('work-stop'), 'work-stop');
    const settled = publishing.then(() => 'published', (error: unknown) => error);
    await pause(1000);
    const abortedAt = Date.now();
    shutdown.abort();

    expect(await settled).toBeInstanceOf(WorkAbortedError);
    expect(Date.now() - abortedAt).toBeLessThan(500);
  }, 30000);

  it('an acknowledgement that NATS could not take while it was down is sent again: the work is not redelivered', async () => {
    await new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, extractRequest('work-ack'), 'work-ack');
    const deliveries: number[] = [];
    const errors: string[] = [];
    const worker = new PipelineWorker(connection, {
      subject: PipelineSubjects.extractRequested,
      durableName: 'ack-across-outage',
      concurrency: 1,
      ackWaitMs: 20000,
      guard: isExtractRequested,
      handle: async (_payload, { deliveryCount }) => {
        deliveries.push(deliveryCount);
        // The work ends while the server is down: its ack is the first thing sent to the outage.
        await server.down();
      },
      onError: (error, activity) => errors.push(`${activity}: ${String(error)}`),
    });
    await worker.start();
    try {
      await waitFor(() => deliveries.length === 1, 10000);
      await pause(OUTAGE_MS);
      await server.up();
      await waitFor(async () => (await workStreamMessageCount(manager)) === 0, 15000);
      expect(deliveries).toEqual([1]);
      expect(errors.filter((error) => error.includes('acknowledging'))).toEqual([]);
    } finally {
      await worker.stop();
    }
  }, 60000);
});

async function waitFor(probe: () => boolean | Promise<boolean>, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await Promise.resolve(probe()).catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`not true within ${deadlineMs} ms`);
    await pause(100);
  }
}

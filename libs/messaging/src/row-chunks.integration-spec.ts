import { randomBytes, randomUUID } from 'node:crypto';
import { DeliverPolicy, ErrorCode, NatsError, type JetStreamManager, type NatsConnection } from 'nats';
import { PipelineStreams } from '@svc/contracts';
import { ensurePipelineStreams } from './pipeline-streams';
import { publishRowChunks, purgeRows, readRowChunks, readRowChunksThrough, readerConsumer, rowsSubjectOf, type ReaderConsumerConfig } from './row-chunks';
import { startJetStreamTestServer, type JetStreamTestServer } from './testing/jetstream-test-kit';

async function* piecesOf(data: Buffer, pieceBytes: number): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < data.length; offset += pieceBytes) yield data.subarray(offset, offset + pieceBytes);
}

async function readAll(chunks: AsyncIterable<Buffer>): Promise<Buffer[]> {
  const result: Buffer[] = [];
  for await (const chunk of chunks) result.push(chunk);
  return result;
}

/**
 * The connection, except that the stream leader does not answer (a NATS request timeout, as nats.js reports one) the
 * `failing`-th STREAM.MSG.GET the reader sends: a leader lost for a moment, in one exact place of the read.
 */
function leaderSilentAt(connection: NatsConnection, failing: number): NatsConnection {
  let gets = 0;
  const managerOf = (manager: JetStreamManager): JetStreamManager =>
    new Proxy(manager, {
      get: (target, property) =>
        property !== 'streams'
          ? (Reflect.get(target, property) as unknown)
          : new Proxy(target.streams, {
              get: (streams, name) =>
                name !== 'getMessage'
                  ? (Reflect.get(streams, name) as unknown)
                  : (...args: Parameters<typeof streams.getMessage>) => {
                      gets += 1;
                      return gets === failing ? Promise.reject(NatsError.errorForCode(ErrorCode.Timeout)) : streams.getMessage(...args);
                    },
            }),
    });
  return new Proxy(connection, {
    get: (target, property) => {
      if (property === 'jetstreamManager') return async (...args: Parameters<NatsConnection['jetstreamManager']>) => managerOf(await target.jetstreamManager(...args));
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('row chunks on JetStream', () => {
  let server: JetStreamTestServer;
  let connection: NatsConnection;
  let manager: JetStreamManager;

  beforeAll(async () => {
    server = await startJetStreamTestServer();
    connection = await server.connect('test-rows');
    await ensurePipelineStreams(connection);
    manager = await server.manager();
  }, 30000);

  afterAll(async () => {
    await server?.stop();
  });

  const newSubject = (): string => rowsSubjectOf(`replication-1/public.orders/${randomUUID()}`, randomUUID());

  async function storedChunks(subject: string): Promise<number> {
    const info = await manager.streams.info(PipelineStreams.rows.name, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }

  async function readersOf(subject: string): Promise<{ delivered: number }[]> {
    const readers: { delivered: number }[] = [];
    for await (const consumer of manager.consumers.list(PipelineStreams.rows.name)) {
      if (consumer.config.filter_subject === subject) readers.push({ delivered: consumer.delivered.consumer_seq });
    }
    return readers;
  }

  it('round-trips 5 MB of random bytes exactly, in chunks of at most 512 KiB', async () => {
    const subject = newSubject();
    const data = randomBytes(5_000_000);
    const published = await publishRowChunks(connection, subject, piecesOf(data, 70_001));
    expect(published).toEqual({ chunkCount: Math.ceil(5_000_000 / (512 * 1024)), byteCount: 5_000_000 });
    expect(await storedChunks(subject)).toBe(published.chunkCount);

    const chunks = await readAll(readRowChunks(connection, subject, published.chunkCount));
    expect(chunks).toHaveLength(published.chunkCount);
    expect(chunks.every((chunk) => chunk.length <= 512 * 1024)).toBe(true);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    expect(await readersOf(subject)).toEqual([]);
  });

  it('publishes while it reads its input: never more than maxInFlight chunks ahead of the stream', async () => {
    const subject = newSubject();
    const chunkBytes = 64 * 1024;
    const maxInFlight = 2;
    let pulledBytes = 0;
    let largestLead = 0;
    async function* watchedInput(): AsyncGenerator<Buffer> {
      for (let piece = 0; piece < 320; piece++) {
        const leadBytes = pulledBytes - (await storedChunks(subject)) * chunkBytes;
        largestLead = Math.max(largestLead, leadBytes);
        const bytes = randomBytes(16 * 1024);
        pulledBytes += bytes.length;
        yield bytes;
      }
    }
    const published = await publishRowChunks(connection, subject, watchedInput(), { maxChunkBytes: chunkBytes, maxInFlight });
    expect(published).toEqual({ chunkCount: 80, byteCount: 320 * 16 * 1024 });
    // One chunk being filled plus the unacknowledged ones: a publisher that buffered its input would lead by megabytes.
    expect(largestLead).toBeLessThanOrEqual((maxInFlight + 1) * chunkBytes);
    expect(largestLead).toBeGreaterThan(0);
  });

  it('reads a few chunks at a time: a slow reader does not pull the whole batch into memory', async () => {
    const subject = newSubject();
    const published = await publishRowChunks(connection, subject, piecesOf(randomBytes(40 * 16 * 1024), 16 * 1024), { maxChunkBytes: 16 * 1024 });
    expect(published.chunkCount).toBe(40);

    let taken = 0;
    for await (const chunk of readRowChunks(connection, subject, published.chunkCount)) {
      expect(chunk).toHaveLength(16 * 1024);
      taken += 1;
      if (taken % 10 === 0) {
        const [reader] = await readersOf(subject);
        expect(reader?.delivered).toBeLessThanOrEqual(taken + 8);
      }
      if (taken === 25) break;
    }
    expect(taken).toBe(25);
    expect(await readersOf(subject)).toEqual([]);
  });

  it('does not count the time a slow reader spends with its chunks as waiting for the next ones', async () => {
    const subject = newSubject();
    const data = randomBytes(10 * 1000);
    await publishRowChunks(connection, subject, piecesOf(data, 1000), { maxChunkBytes: 1000 });
    const chunks: Buffer[] = [];
    for await (const chunk of readRowChunks(connection, subject, 10, { idleTimeoutMs: 1000 })) {
      chunks.push(chunk);
      if (chunks.length === 1) await new Promise((resume) => setTimeout(resume, 1500)); // a slow COPY into staging
    }
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('fails at once, not after the idle deadline, when the stream holds none of the chunks (purged by a newer extraction)', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(Buffer.alloc(2000, 'a'), 1000), { maxChunkBytes: 1000 });
    await purgeRows(connection, subject);
    const startedAt = Date.now();
    await expect(readAll(readRowChunks(connection, subject, 2, { idleTimeoutMs: 20000 }))).rejects.toThrow(
      `expected 2 chunks on ${subject} but the rows stream holds none: they were purged or expired`,
    );
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it('purges the subject before publishing again, so a retry never appends to an earlier attempt', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(Buffer.alloc(3000, 'a'), 1000), { maxChunkBytes: 1000 });
    expect(await storedChunks(subject)).toBe(3);

    const retry = Buffer.alloc(1500, 'b');
    const published = await publishRowChunks(connection, subject, piecesOf(retry, 1000), { maxChunkBytes: 1000 });
    expect(published).toEqual({ chunkCount: 2, byteCount: 1500 });
    expect(await storedChunks(subject)).toBe(2);
    expect(Buffer.concat(await readAll(readRowChunks(connection, subject, 2))).equals(retry)).toBe(true);
  });

  it('fails at once when the stream leader holds fewer chunks than expected: chunks are stored before their batch is announced', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(randomBytes(3000), 1000), { maxChunkBytes: 1000 });
    const startedAt = Date.now();
    await expect(readAll(readRowChunks(connection, subject, 5, { idleTimeoutMs: 30000 }))).rejects.toThrow(
      `expected 5 chunks on ${subject} but got 3: the rows stream holds no more`,
    );
    // Two pulls that wait out their 5-s expiry (the first for the two chunks it asked beyond the three), against the 30-s idle deadline.
    expect(Date.now() - startedAt).toBeLessThan(15000);
    expect(await readersOf(subject)).toEqual([]);
  });

  it('fails at once, not after the idle deadline, when the rest is purged while it reads (an earlier delivery of the batch finished it)', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(randomBytes(10 * 1000), 1000), { maxChunkBytes: 1000 });
    const read: Buffer[] = [];
    const startedAt = Date.now();
    const reading = (async () => {
      for await (const chunk of readRowChunks(connection, subject, 10, { idleTimeoutMs: 20000 })) {
        read.push(chunk);
        if (read.length === 1) await purgeRows(connection, subject);
      }
    })();
    await expect(reading).rejects.toThrow(/^expected 10 chunks on .* but got \d+: the rows stream holds no more/);
    // The reader's first pull may have brought a few chunks before the purge; never all of them.
    expect(read.length).toBeLessThan(10);
    // One empty pull (its 5-s expiry) and a question to the leader, against the 20-s idle deadline.
    expect(Date.now() - startedAt).toBeLessThan(10000);
    expect(await readersOf(subject)).toEqual([]);
  });

  it('fails when the subject holds more chunks than expected', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(randomBytes(3000), 1000), { maxChunkBytes: 1000 });
    await expect(readAll(readRowChunks(connection, subject, 2))).rejects.toThrow(`${subject} holds 3 chunks, more than the 2 expected`);
  });

  it('fails on messages that are not the chunk sequence of one publish', async () => {
    const subject = newSubject();
    await connection.jetstream().publish(subject, Buffer.from('written by something else'));
    await expect(readAll(readRowChunks(connection, subject, 1))).rejects.toThrow(`chunk 0 of ${subject} is out of sequence (found '')`);
  });

  it('handles an empty batch: no chunks published, none read', async () => {
    const subject = newSubject();
    expect(await publishRowChunks(connection, subject, piecesOf(Buffer.alloc(0), 1000))).toEqual({ chunkCount: 0, byteCount: 0 });
    expect(await storedChunks(subject)).toBe(0);
    expect(await readAll(readRowChunks(connection, subject, 0))).toEqual([]);
  });

  // Its batch is never announced and no other publication writes its subject: its chunks would only wait out the rows
  // stream's 24 h age limit (a source that fails mid-read, again and again, filled the stream).
  it('stops and reports the first failure of its input, and takes away the chunks it stored', async () => {
    const subject = newSubject();
    async function* failingInput(): AsyncGenerator<Buffer> {
      yield randomBytes(2000);
      throw new Error('source connection lost');
    }
    await expect(publishRowChunks(connection, subject, failingInput(), { maxChunkBytes: 1000 })).rejects.toThrow('source connection lost');
    expect(await storedChunks(subject)).toBe(0);
  });

  /**
   * A consumer on a node whose copy of the stream is behind sees nothing that the leader holds (see the cluster
   * spec, which makes one for real). Here the reader's consumer starts at "new messages only", which it sees the same way.
   */
  const blindConsumer: ReaderConsumerConfig = (subject, resumeAt, idleTimeoutMs) => ({
    ...readerConsumer(subject, resumeAt, idleTimeoutMs),
    deliver_policy: DeliverPolicy.New,
    // The reader resumes after the chunk it took from the leader; "new only" takes no start sequence.
    opt_start_seq: undefined,
  });

  it('reads the rest from the stream leader when its consumer sees less than the leader holds', async () => {
    const subject = newSubject();
    const data = randomBytes(5 * 1000);
    const published = await publishRowChunks(connection, subject, piecesOf(data, 1000), { maxChunkBytes: 1000 });
    const behindAt: number[] = [];

    const chunks = await readAll(readRowChunksThrough(blindConsumer, connection, subject, published.chunkCount, { idleTimeoutMs: 3000, onConsumerBehind: (index) => behindAt.push(index) }));

    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    // Chunk 0 comes from the leader (the reader asks it first); its consumer is found behind at chunk 1.
    expect(behindAt).toEqual([1]);
    expect(await readersOf(subject)).toEqual([]);
  });

  /** A consumer that starts before the start sequence asked for, as nats-server makes one on a copy that is behind. */
  const replayingConsumer: ReaderConsumerConfig = (subject, _resumeAt, idleTimeoutMs) => readerConsumer(subject, undefined, idleTimeoutMs);

  it('skips chunks its consumer delivers again from before the last one taken (a consumer on a copy that is behind)', async () => {
    const subject = newSubject();
    const data = randomBytes(5 * 1000);
    const published = await publishRowChunks(connection, subject, piecesOf(data, 1000), { maxChunkBytes: 1000 });

    const chunks = await readAll(readRowChunksThrough(replayingConsumer, connection, subject, published.chunkCount, { idleTimeoutMs: 3000 }));

    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('takes a one-chunk batch from the stream leader alone: no consumer is made', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(Buffer.alloc(500, 'x'), 500), { maxChunkBytes: 1000 });
    const consumersBefore = (await manager.streams.info(PipelineStreams.rows.name)).state.consumer_count;
    let consumersWhileReading = -1;
    for await (const chunk of readRowChunks(connection, subject, 1)) {
      expect(chunk).toEqual(Buffer.alloc(500, 'x'));
      consumersWhileReading = (await manager.streams.info(PipelineStreams.rows.name)).state.consumer_count;
    }
    expect(consumersWhileReading).toBe(consumersBefore);
  });

  it('waits out a leader that does not answer whether a one-chunk batch holds more, instead of failing the read', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(Buffer.alloc(500, 'y'), 500), { maxChunkBytes: 1000 });

    // The reader's first get finds the chunk; its second, whether another follows, gets no answer.
    const chunks = await readAll(readRowChunks(leaderSilentAt(connection, 2), subject, 1, { idleTimeoutMs: 3000 }));

    expect(chunks).toEqual([Buffer.alloc(500, 'y')]);
  });

  it('hands out the last chunk taken from the leader even when the check after it gets no answer at first', async () => {
    const subject = newSubject();
    const data = randomBytes(2 * 1000);
    const published = await publishRowChunks(connection, subject, piecesOf(data, 1000), { maxChunkBytes: 1000 });

    // Gets: 1 chunk 0 (first), 2 chunk 1 from the leader (the consumer sees nothing), 3 "any more after chunk 1?" unanswered.
    const chunks = await readAll(readRowChunksThrough(blindConsumer, leaderSilentAt(connection, 3), subject, published.chunkCount, { idleTimeoutMs: 3000 }));

    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });

  it('fails when the leader holds more chunks than expected', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(randomBytes(3000), 1000), { maxChunkBytes: 1000 });

    await expect(readAll(readRowChunksThrough(blindConsumer, connection, subject, 2, { idleTimeoutMs: 3000 }))).rejects.toThrow(`${subject} holds more than the 2 chunks expected`);
  });

  it('still fails, at once, when neither its consumer nor the leader has the next chunk', async () => {
    const subject = newSubject();
    await publishRowChunks(connection, subject, piecesOf(randomBytes(2000), 1000), { maxChunkBytes: 1000 });

    await expect(readAll(readRowChunksThrough(blindConsumer, connection, subject, 3, { idleTimeoutMs: 20000 }))).rejects.toThrow(/expected 3 chunks on .* but got 2: the rows stream holds no more/);
  });
});

import { createHash, randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, headers, nanos, type ConsumerConfig, type JetStreamManager, type MsgHdrs, type MsgRequest, type NatsConnection, type PubAck, type StoredMsg } from 'nats';
import { PipelineSubjects } from '@svc/contracts';
import { busNames } from './bus-names';
import { JetStreamErrorCode, errorText, isClusterUnavailable, jetStreamErrorCode } from './jetstream-errors';
import { fixedSizeChunks } from './fixed-size-chunks';
import { DEFAULT_OUTAGE_WAIT, NO_OUTAGE_WAIT, isNatsOutage, isNoResponders, noStreamTakes, waitOutOutage, type OutageWait } from './nats-outage';
import { ROWS_MAX_MESSAGE_BYTES } from './pipeline-streams';
import { WorkAbortedError } from './work-errors';

export const DEFAULT_MAX_CHUNK_BYTES = 512 * 1024;
export const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_IDLE_TIMEOUT_MS = 30000;
/**
 * How long a reader waits for a NATS cluster that does not serve the rows stream (a node died, leaders are being
 * elected): an election takes several seconds, far more on a loaded machine, and is not a reason to fail the batch.
 */
const DEFAULT_FAILOVER_TIMEOUT_MS = 120000;
/** Room kept in every message for its headers, under the rows stream's message size limit. */
const HEADER_ALLOWANCE_BYTES = 1024;
/** Chunks requested per pull while reading: bounds what waits in memory for a slow reader. */
const READ_BATCH = 8;
/** One pull waits at most this long for chunks (less when the idle deadline is nearer). */
const FETCH_EXPIRES_MS = 5000;
/** Past its expiry, a pull that the server never ended (its node died) is given up after this much longer. */
const FETCH_GRACE_MS = 2000;
/** Pause before a new consumer after a failed pull, so a failing over cluster is not hammered. */
const RECOVERY_PAUSE_MS = 250;
/** Each chunk carries its position, so a reader notices a batch republished under its feet. */
const CHUNK_INDEX_HEADER = 'Svc-Chunk-Index';


/**
 * The rows subject of a batch as one publication wrote it: one token, a hash of both ids, so any batch id is safe in a
 * subject. The extractor passes a publication id of its own (work id and a random id): two reads of one batch id (two
 * attempts of a work at once, or the table's next work from the same watermark) must never share a subject, whose
 * purges and chunks would interleave or take away rows a stage is still reading.
 */
export function rowsSubjectOf(batchId: string, publicationId: string): string {
  return `${busNames().subject(PipelineSubjects.rowsPrefix)}.${createHash('sha256').update(`${publicationId}\n${batchId}`, 'utf8').digest('hex')}`;
}

/** Removes every chunk stored under `subject`, waiting out NATS being unreachable like a publish (see waitOutOutage). */
export async function purgeRows(connection: NatsConnection, subject: string, outageWait: Partial<OutageWait> = {}): Promise<void> {
  requireRowsSubject(subject);
  await waitOutOutage(async () => {
    const manager = await connection.jetstreamManager();
    await manager.streams.purge(busNames().rowsStream, { filter: subject });
  }, { ...DEFAULT_OUTAGE_WAIT, ...outageWait });
}

/** A chunk whose publish is not confirmed yet; `firstAttempt` never rejects. */
interface PendingChunk {
  index: number;
  data: Uint8Array;
  headers: MsgHdrs;
  firstAttempt: Promise<{ ack: PubAck } | { error: unknown }>;
}

/**
 * Publishes the bytes as messages of at most `maxChunkBytes` (chunk boundaries anywhere, also inside a
 * row), keeping at most `maxInFlight` publishes unacknowledged: throughput without unbounded memory.
 * Purges the subject first, so a retried extraction never appends to an earlier attempt, and purges what it stored
 * when it fails (the batch is never announced).
 *
 * A chunk whose publish failed because NATS is unreachable is published again in place, in chunk order and
 * under the same message id (JetStream drops the repeat of one that was stored after all), for up to
 * `outageWait.maxWaitMs`; a chunk stored out of order all the same (a later one got through first) fails
 * the publication, since readers take chunks in stream order.
 */
export async function publishRowChunks(
  connection: NatsConnection,
  subject: string,
  chunks: AsyncIterable<Buffer | Uint8Array>,
  options: { maxChunkBytes?: number; maxInFlight?: number; outageWait?: Partial<OutageWait> } = {},
): Promise<{ chunkCount: number; byteCount: number }> {
  requireRowsSubject(subject);
  const maxChunkBytes = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const largestChunk = Math.min(ROWS_MAX_MESSAGE_BYTES, connection.info?.max_payload ?? ROWS_MAX_MESSAGE_BYTES) - HEADER_ALLOWANCE_BYTES;
  if (!Number.isSafeInteger(maxChunkBytes) || maxChunkBytes < 1 || maxChunkBytes > largestChunk) {
    throw new Error(`maxChunkBytes must be an integer from 1 to ${largestChunk}, got ${maxChunkBytes}`);
  }
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) throw new Error(`maxInFlight must be an integer >= 1, got ${maxInFlight}`);
  const outageWait: OutageWait = { ...DEFAULT_OUTAGE_WAIT, ...options.outageWait };

  await purgeRows(connection, subject, outageWait);
  const jetStream = connection.jetstream();
  // Message ids of this publication only: a retried extraction purges and publishes anew, never deduplicated away.
  const publicationId = randomUUID();
  const send = (chunk: Omit<PendingChunk, 'firstAttempt'>): Promise<PubAck> =>
    jetStream.publish(subject, chunk.data, { headers: chunk.headers, msgID: `${publicationId}/${chunk.index}`, expect: { streamName: busNames().rowsStream } });
  let lastSequence = 0;
  const confirm = async (chunk: PendingChunk): Promise<void> => {
    const first = await chunk.firstAttempt;
    if ('error' in first && !isNatsOutage(first.error)) throw publishFailure(first.error, subject);
    let ack: PubAck;
    try {
      ack = 'ack' in first ? first.ack : await waitOutOutage(() => send(chunk), outageWait, async (error) => isNoResponders(error) && (await noStreamTakes(connection, busNames().rowsStream, subject)));
    } catch (error) {
      if (error instanceof WorkAbortedError) throw error;
      throw publishFailure(error, subject);
    }
    if (ack.seq <= lastSequence) {
      throw new Error(`row chunk ${chunk.index} of ${subject} was stored out of order while NATS was unreachable (a later chunk got through first)`);
    }
    lastSequence = ack.seq;
  };

  const unconfirmed: PendingChunk[] = [];
  let chunkCount = 0;
  let byteCount = 0;
  let failed = true;
  try {
    for await (const data of fixedSizeChunks(chunks, maxChunkBytes)) {
      const chunkHeaders = headers();
      chunkHeaders.set(CHUNK_INDEX_HEADER, String(chunkCount));
      const chunk = { index: chunkCount, data, headers: chunkHeaders };
      unconfirmed.push({ ...chunk, firstAttempt: send(chunk).then((ack) => ({ ack }), (error: unknown) => ({ error })) });
      chunkCount += 1;
      byteCount += data.length;
      // One at a time, oldest first: a chunk published again after an outage keeps its place in the stream.
      if (unconfirmed.length >= maxInFlight) await confirm(unconfirmed.shift() as PendingChunk);
    }
    while (unconfirmed.length > 0) await confirm(unconfirmed.shift() as PendingChunk);
    failed = false;
  } finally {
    // Also when the input or a publish failed: every publish settles before this returns, none is left dangling.
    await Promise.all(unconfirmed.splice(0).map((chunk) => chunk.firstAttempt));
    // What a failed publication stored goes now, not at the stream's age limit. One attempt: with NATS unreachable the
    // chunks wait for that limit.
    if (failed) await purgeRows(connection, subject, NO_OUTAGE_WAIT).catch(() => undefined);
  }
  return { chunkCount, byteCount };
}

/**
 * Reads exactly `chunkCount` chunks of `subject` in order, a few at a time, through a consumer of the reader's
 * own (in memory, on one node). Fails at once when the stream leader holds no next chunk (purged or expired: chunks are
 * stored before their batch is announced), when fewer arrive with no progress for `idleTimeoutMs` while NATS serves
 * the rows stream, when the subject holds more than `chunkCount`, or when the chunks are not the sequence one
 * publishRowChunks call wrote.
 *
 * In a NATS cluster the node holding the reader's consumer may die mid-read: the reader then makes a new
 * consumer that starts after the last chunk it got, as soon as the cluster serves the stream again. Time in
 * which NATS does not answer (or answers that it cannot yet) is failover, not idleness: it is bounded by
 * `failoverTimeoutMs` instead (the client's own consumer recovery can retry for many minutes, which held workers up).
 *
 * A one-replica consumer reads the copy of the stream on its own node, and a node that was restarted may hold a
 * copy that stays behind for minutes: a pull that comes back empty is checked against the stream leader, and when
 * the leader has the next chunk the reader takes the rest from the leader, one chunk per request.
 */
export function readRowChunks(connection: NatsConnection, subject: string, chunkCount: number, options: ReadRowChunksOptions = {}): AsyncGenerator<Buffer> {
  return readRowChunksThrough(readerConsumer, connection, subject, chunkCount, options);
}

export interface ReadRowChunksOptions {
  idleTimeoutMs?: number;
  failoverTimeoutMs?: number;
  /** Called once when the reader's consumer was found behind the stream leader and the rest is read from the leader. */
  onConsumerBehind?: (chunkIndex: number) => void;
}

/** How the reader's consumer is configured: from the subject, where to resume, and the idle deadline. */
export type ReaderConsumerConfig = (subject: string, resumeAt: number | undefined, idleTimeoutMs: number) => Partial<ConsumerConfig>;

/**
 * readRowChunks with the reader's consumer configured by `consumerConfig`. Not exported by the library: its
 * specs use it to make a consumer that sees less than the stream leader holds, as one on a lagging copy does.
 */
export async function* readRowChunksThrough(
  consumerConfig: ReaderConsumerConfig,
  connection: NatsConnection,
  subject: string,
  chunkCount: number,
  options: ReadRowChunksOptions = {},
): AsyncGenerator<Buffer> {
  requireRowsSubject(subject);
  if (!Number.isSafeInteger(chunkCount) || chunkCount < 0) throw new Error(`chunkCount must be an integer >= 0, got ${chunkCount}`);
  if (chunkCount === 0) return;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const failoverTimeoutMs = options.failoverTimeoutMs ?? DEFAULT_FAILOVER_TIMEOUT_MS;
  const manager = await connection.jetstreamManager();
  let index = 0;
  /** The stream sequence after the last chunk read: where a new consumer, or the next read from the leader, starts. */
  let resumeAt: number | undefined;
  let consumerName: string | undefined;
  /** Set once the reader's consumer was seen behind the stream leader: the rest is read from the leader. */
  let fromLeader = false;
  let lastProblem = '';
  /** Since the last chunk: time spent while NATS served the stream, and while it did not. */
  let idleMs = 0;
  let unavailableMs = 0;
  /**
   * Chunks are stored before their batch is announced, so the next chunk missing on the stream leader was purged: most
   * often by an earlier delivery of the same batch that outlived its ack deadline (a NATS node lost) and finished the
   * batch while this one read (CI). Said at once, not after the idle deadline: the next delivery finds the batch applied.
   */
  const noMoreChunks = (): string =>
    `expected ${chunkCount} chunks on ${subject} but got ${index}: the rows stream holds no more (purged by another delivery of the batch that finished it, or expired)`;
  /** Deletes the reader's consumer; the promise settles (never fails) once NATS answered or gave up. */
  const forgetConsumer = async (): Promise<void> => {
    const name = consumerName;
    consumerName = undefined;
    if (name !== undefined) await manager.consumers.delete(busNames().rowsStream, name).catch(() => false);
  };
  /** Takes the chunk stored at `sequence` as the next one; `pending` is how many more the subject holds after it, when known. */
  const accept = (sequence: number, chunkHeaders: MsgHdrs | undefined, data: Uint8Array, pending: number | undefined): Buffer => {
    const found = chunkHeaders?.get(CHUNK_INDEX_HEADER) ?? '';
    if (found !== String(index)) {
      throw new RowChunkSequenceError(`chunk ${index} of ${subject} is out of sequence (found '${found}'): the batch was republished while being read`);
    }
    index += 1;
    resumeAt = sequence + 1;
    if (index === chunkCount && pending !== undefined && pending > 0) {
      throw new RowChunkSequenceError(`${subject} holds ${chunkCount + pending} chunks, more than the ${chunkCount} expected`);
    }
    return Buffer.from(data);
  };
  /**
   * A chunk the stream leader answered with, as the next one; for the last one, first makes sure the leader holds no
   * more. Checked before the chunk is taken: a check that fails (NATS unavailable) must leave it to be read again, not
   * counted as read and never handed out (the read would end one chunk short).
   */
  const takeFromLeader = async (stored: StoredMsg): Promise<Buffer> => {
    if (index + 1 === chunkCount) {
      const extra = await leaderChunkFrom(manager, subject, stored.seq + 1);
      if (extra !== undefined) throw new RowChunkSequenceError(`${subject} holds more than the ${chunkCount} chunks expected`);
    }
    return accept(stored.seq, stored.header, stored.data, undefined);
  };
  /** Up to READ_BATCH chunks through the reader's consumer (made when there is none). */
  const pullFromConsumer = async (pulled: Buffer[]): Promise<void> => {
    consumerName ??= (await manager.consumers.add(busNames().rowsStream, consumerConfig(subject, resumeAt, idleTimeoutMs))).name;
    const consumer = await connection.jetstream().consumers.get(busNames().rowsStream, consumerName);
    const expires = Math.max(1000, Math.min(FETCH_EXPIRES_MS, idleTimeoutMs - idleMs));
    const messages = await consumer.fetch({ max_messages: Math.min(READ_BATCH, chunkCount - index), expires });
    const overdue = setTimeout(() => messages.stop(new PullUnansweredError(`no answer to a pull within ${expires + FETCH_GRACE_MS} ms`)), expires + FETCH_GRACE_MS);
    try {
      for await (const message of messages) {
        // A chunk before the last one taken: a consumer on a copy of the stream that is behind starts at that copy's end,
        // not at the start sequence asked for (nats-server clamps it), and then delivers what it catches up on.
        if (resumeAt !== undefined && message.seq < resumeAt) continue;
        pulled.push(accept(message.seq, message.headers, message.data, message.info.pending));
      }
    } finally {
      clearTimeout(overdue);
    }
    if (pulled.length === 0) {
      const stored = await leaderChunkFrom(manager, subject, resumeAt ?? 1);
      if (stored === undefined) throw new RowChunksGoneError(noMoreChunks());
      fromLeader = true;
      lastProblem = `the reader's consumer was behind the stream leader`;
      void forgetConsumer();
      options.onConsumerBehind?.(index);
      // The leader's answer is the next chunk: taken, not asked for again.
      pulled.push(await takeFromLeader(stored));
    }
  };
  /** The next chunk as the stream leader has it. */
  const readFromLeader = async (pulled: Buffer[]): Promise<void> => {
    const stored = await leaderChunkFrom(manager, subject, resumeAt ?? 1);
    if (stored === undefined) throw new RowChunksGoneError(noMoreChunks());
    pulled.push(await takeFromLeader(stored));
  };
  // Chunks are stored and acknowledged before their batch is announced, so a reader that finds none on the leader
  // will never see them (purged by a newer extraction of the same batch, or expired): say so now, not after the
  // idle deadline, so that the batch is retried in seconds. A leader that cannot answer is waited for as below.
  /**
   * The leader's answer is the first chunk itself: taken in the loop below, not read again through a consumer. A small
   * change batch is one chunk, and its consumer's creation, pull and deletion were most of a one-row batch's time in the
   * stager, inside staging's open COPY (many-tables bench, 2026-11-30).
   */
  let first = await leaderChunkFrom(manager, subject, 1).catch(() => null);
  if (first === undefined) throw new RowChunksGoneError(`expected ${chunkCount} chunks on ${subject} but the rows stream holds none: they were purged or expired`);
  const takeFirst = async (stored: StoredMsg, pulled: Buffer[]): Promise<void> => {
    // Taken once whatever happens: should its check fail, the chunk is read again like any other (a consumer from the start).
    first = null;
    pulled.push(await takeFromLeader(stored));
  };
  try {
    while (index < chunkCount) {
      const cause = lastProblem === '' ? '' : ` (last problem: ${lastProblem})`;
      if (idleMs >= idleTimeoutMs) {
        throw new Error(`expected ${chunkCount} chunks on ${subject} but got ${index}: nothing more arrived within ${idleTimeoutMs} ms${cause}`);
      }
      if (unavailableMs >= failoverTimeoutMs) {
        throw new Error(`expected ${chunkCount} chunks on ${subject} but got ${index}: NATS did not serve the rows stream for ${failoverTimeoutMs} ms${cause}`);
      }
      const pulled: Buffer[] = [];
      const attemptStartedAt = Date.now();
      let unavailable = false;
      try {
        await (first !== null ? takeFirst(first, pulled) : fromLeader ? readFromLeader(pulled) : pullFromConsumer(pulled));
      } catch (error) {
        if (error instanceof RowChunkSequenceError || error instanceof RowChunksGoneError) throw error;
        // The consumer or its node is gone, or NATS is failing over: go on from the last chunk on a new consumer.
        lastProblem = errorText(error);
        unavailable = error instanceof PullUnansweredError || isClusterUnavailable(error);
        void forgetConsumer();
        await new Promise((done) => setTimeout(done, RECOVERY_PAUSE_MS));
      }
      if (pulled.length > 0) {
        yield* pulled;
        idleMs = 0;
        unavailableMs = 0;
      } else if (unavailable) {
        unavailableMs += Date.now() - attemptStartedAt;
      } else {
        idleMs += Date.now() - attemptStartedAt;
      }
    }
  } finally {
    // Awaited: a reader that returned leaves no consumer behind (the inactivity threshold is only the fallback).
    await forgetConsumer();
  }
}

/**
 * The first chunk of `subject` stored at or after `sequence`, asked of the stream leader (which holds every
 * acknowledged chunk); undefined when there is none.
 */
async function leaderChunkFrom(manager: JetStreamManager, subject: string, sequence: number): Promise<StoredMsg | undefined> {
  // STREAM.MSG.GET takes next_by_subj (nats-server 2.9+); nats.js types it only for direct gets.
  const nextBySubject = { seq: sequence, next_by_subj: subject } as unknown as MsgRequest;
  try {
    return await manager.streams.getMessage(busNames().rowsStream, nextBySubject);
  } catch (error) {
    if (jetStreamErrorCode(error) === JetStreamErrorCode.noMessageFound) return undefined;
    throw error;
  }
}

/** A consumer of one reader: in memory, one replica, gone by itself once the reader stops asking. */
export const readerConsumer: ReaderConsumerConfig = (subject, resumeAt, idleTimeoutMs) => ({
  filter_subject: subject,
  ack_policy: AckPolicy.None,
  ...(resumeAt === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: resumeAt }),
  mem_storage: true,
  num_replicas: 1,
  inactive_threshold: nanos(Math.max(idleTimeoutMs, 5000)),
});

/** The node that was to answer a pull is gone: the cluster is failing over. */
class PullUnansweredError extends Error {}

/**
 * The batch's rows cannot be read as announced: no chunk of it is left in the stream (a NATS node lost them, or they
 * expired), or the chunks are not the one publication the batch names (more of them, or out of sequence). Waiting or
 * delivering the batch again cannot mend that; its work must be read again.
 */
export class RowChunksGoneError extends Error {}

/**
 * The chunks themselves are wrong, not a retry away from right: a subject is written by one publication only, so no
 * later delivery finds it otherwise (a batch retried on this until its table froze, when two attempts shared one).
 */
class RowChunkSequenceError extends RowChunksGoneError {}

/** A rows subject of this installation: `<rows prefix>.<one token>`, no wildcards. */
function requireRowsSubject(subject: string): void {
  const prefix = `${busNames().subject(PipelineSubjects.rowsPrefix)}.`;
  const token = subject.startsWith(prefix) ? subject.slice(prefix.length) : '';
  if (!/^[^.*>\s]+$/.test(token)) {
    throw new Error(`'${subject}' is not a rows subject (${prefix}<token>, no wildcards); use rowsSubjectOf`);
  }
}

function publishFailure(error: unknown, subject: string): Error {
  return new Error(`cannot publish a row chunk to ${subject}: ${errorText(error)}`, { cause: error });
}

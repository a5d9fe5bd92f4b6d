import { createHash } from 'node:crypto';
import { headers, type NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects } from '@svc/contracts';
import { errorText } from './jetstream-errors';
import { fixedSizeChunks } from './fixed-size-chunks';
import { ROWS_MAX_MESSAGE_BYTES } from './pipeline-streams';

export const DEFAULT_MAX_CHUNK_BYTES = 512 * 1024;
export const DEFAULT_MAX_IN_FLIGHT = 32;
const DEFAULT_IDLE_TIMEOUT_MS = 30000;
/** Room kept in every message for its headers, under the rows stream's message size limit. */
const HEADER_ALLOWANCE_BYTES = 1024;
/** Chunks requested per pull while reading: bounds what waits in memory for a slow reader. */
const READ_BATCH = 8;
/** Each chunk carries its position, so a reader notices a batch republished under its feet. */
const CHUNK_INDEX_HEADER = 'Svc-Chunk-Index';

const ROWS_SUBJECT = new RegExp(`^${PipelineSubjects.rowsPrefix.replace(/\./g, '\\.')}\\.[^.*>\\s]+$`);

/** The rows subject of a batch: one token, a hash of the batch id, so any batch id is safe in a subject. */
export function rowsSubjectOf(batchId: string): string {
  return `${PipelineSubjects.rowsPrefix}.${createHash('sha256').update(batchId, 'utf8').digest('hex')}`;
}

/** Removes every chunk stored under `subject`. */
export async function purgeRows(connection: NatsConnection, subject: string): Promise<void> {
  requireRowsSubject(subject);
  const manager = await connection.jetstreamManager();
  await manager.streams.purge(PipelineStreams.rows.name, { filter: subject });
}

/**
 * Publishes the bytes as messages of at most `maxChunkBytes` (chunk boundaries anywhere, also inside a
 * row), keeping at most `maxInFlight` publishes unacknowledged: throughput without unbounded memory.
 * Purges the subject first, so a retried extraction never appends to an earlier attempt.
 */
export async function publishRowChunks(
  connection: NatsConnection,
  subject: string,
  chunks: AsyncIterable<Buffer | Uint8Array>,
  options: { maxChunkBytes?: number; maxInFlight?: number } = {},
): Promise<{ chunkCount: number; byteCount: number }> {
  requireRowsSubject(subject);
  const maxChunkBytes = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const largestChunk = Math.min(ROWS_MAX_MESSAGE_BYTES, connection.info?.max_payload ?? ROWS_MAX_MESSAGE_BYTES) - HEADER_ALLOWANCE_BYTES;
  if (!Number.isSafeInteger(maxChunkBytes) || maxChunkBytes < 1 || maxChunkBytes > largestChunk) {
    throw new Error(`maxChunkBytes must be an integer from 1 to ${largestChunk}, got ${maxChunkBytes}`);
  }
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) throw new Error(`maxInFlight must be an integer >= 1, got ${maxInFlight}`);

  await purgeRows(connection, subject);
  const jetStream = connection.jetstream();
  const unacknowledged: Promise<Error | undefined>[] = [];
  let chunkCount = 0;
  let byteCount = 0;
  let lateFailure: Error | undefined;
  try {
    for await (const chunk of fixedSizeChunks(chunks, maxChunkBytes)) {
      const chunkHeaders = headers();
      chunkHeaders.set(CHUNK_INDEX_HEADER, String(chunkCount));
      const ack = jetStream.publish(subject, chunk, { headers: chunkHeaders, expect: { streamName: PipelineStreams.rows.name } });
      unacknowledged.push(ack.then(noError, asError));
      chunkCount += 1;
      byteCount += chunk.length;
      if (unacknowledged.length >= maxInFlight) throwIfFailed(await unacknowledged.shift(), subject);
    }
  } finally {
    // Also when the input failed: every publish settles before this returns, none is left dangling.
    lateFailure = (await Promise.all(unacknowledged.splice(0))).find((outcome) => outcome !== undefined);
  }
  throwIfFailed(lateFailure, subject);
  return { chunkCount, byteCount };
}

/**
 * Reads exactly `chunkCount` chunks of `subject` in order through an ordered consumer, a few at a time.
 * Fails when fewer arrive with no progress for `idleTimeoutMs`, when the subject holds more than
 * `chunkCount`, or when the chunks are not the sequence one publishRowChunks call wrote.
 */
export async function* readRowChunks(
  connection: NatsConnection,
  subject: string,
  chunkCount: number,
  options: { idleTimeoutMs?: number } = {},
): AsyncGenerator<Buffer> {
  requireRowsSubject(subject);
  if (!Number.isSafeInteger(chunkCount) || chunkCount < 0) throw new Error(`chunkCount must be an integer >= 0, got ${chunkCount}`);
  if (chunkCount === 0) return;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const consumer = await connection.jetstream().consumers.get(PipelineStreams.rows.name, { filterSubjects: subject });
  let index = 0;
  let waitingSince = Date.now();
  try {
    while (index < chunkCount) {
      const idleMs = Date.now() - waitingSince;
      if (idleMs >= idleTimeoutMs) {
        throw new Error(`expected ${chunkCount} chunks on ${subject} but got ${index}: nothing more arrived within ${idleTimeoutMs} ms`);
      }
      const messages = await consumer.fetch({
        max_messages: Math.min(READ_BATCH, chunkCount - index),
        expires: Math.max(1000, idleTimeoutMs - idleMs),
      });
      // Take the whole pull before handing anything out: nats.js's ordered fetch drops the messages that
      // arrive while its consumer is suspended in a yield once the pull completes.
      const pulled: Buffer[] = [];
      for await (const message of messages) {
        const found = message.headers?.get(CHUNK_INDEX_HEADER) ?? '';
        if (found !== String(index)) {
          throw new Error(`chunk ${index} of ${subject} is out of sequence (found '${found}'): the batch was republished while being read`);
        }
        index += 1;
        if (index === chunkCount && message.info.pending > 0) {
          throw new Error(`${subject} holds ${chunkCount + message.info.pending} chunks, more than the ${chunkCount} expected`);
        }
        // A copy: the reader may keep the chunk after the client reuses or releases its receive buffers.
        pulled.push(Buffer.from(message.data));
      }
      if (pulled.length > 0) {
        yield* pulled;
        // Time the reader spends with the chunks is not time spent waiting for the next ones.
        waitingSince = Date.now();
      }
    }
  } finally {
    await consumer.delete().catch(() => false);
  }
}

function requireRowsSubject(subject: string): void {
  if (!ROWS_SUBJECT.test(subject)) {
    throw new Error(`'${subject}' is not a rows subject (${PipelineSubjects.rowsPrefix}.<token>, no wildcards); use rowsSubjectOf`);
  }
}

function noError(): undefined {
  return undefined;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(errorText(error));
}

function throwIfFailed(outcome: Error | undefined, subject: string): void {
  if (outcome) throw new Error(`cannot publish a row chunk to ${subject}: ${outcome.message}`, { cause: outcome });
}

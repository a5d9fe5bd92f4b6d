import { createHash } from 'node:crypto';
import { StorageType, type KV, type NatsConnection } from 'nats';
import { jetStreamErrorCode } from './jetstream-errors';
import { busNames } from './bus-names';

/** What the bucket may hold at most: far above what the gateways' per-key limits let in within one skew window. */
const REPLAY_BUCKET_MAX_BYTES = 256 * 1024 * 1024;
/** JetStream's "wrong last sequence" (nats-server errors.json, JSStreamWrongLastSequenceErrF): the key was written before. */
const WRONG_LAST_SEQUENCE = 10071;

/**
 * Makes the gateways' shared replay records (ReplayRecords) or leaves them as they are; entries expire after `ttlMs`,
 * which must be at least twice the longest clock skew a gateway accepts (a signature dated that far ahead stays valid
 * that long). Run by the registry, which alone manages streams.
 */
export async function ensureReplayRecords(connection: NatsConnection, options: { ttlMs: number; replicas?: number }): Promise<void> {
  await connection.jetstream().views.kv(busNames().replayBucket, {
    ttl: options.ttlMs,
    history: 1,
    replicas: options.replicas ?? 1,
    storage: StorageType.File,
    max_bytes: REPLAY_BUCKET_MAX_BYTES,
  });
}

/** Why a claim could not be judged: NATS, or the bucket (not made yet by the registry), did not answer. */
export class ReplayRecordsUnavailableError extends Error {}

/**
 * A gateway's side of the shared replay records: the first claim of a signature wins, every later one, through any
 * replica, is told it was seen. Keys are a digest of the access key id and the signature: one token, nothing secret.
 */
export class SharedReplayRecords {
  private bucket: Promise<KV> | undefined;

  constructor(private readonly connection: NatsConnection) {}

  /** 'first' when no replica saw this signature of this key before; 'replayed' otherwise. */
  async claim(accessKeyId: string, signature: string): Promise<'first' | 'replayed'> {
    const key = createHash('sha256').update(`${accessKeyId}\n${signature}`).digest('hex');
    try {
      const bucket = await (this.bucket ??= this.bind());
      await bucket.put(key, new Uint8Array(0), { previousSeq: 0 });
      return 'first';
    } catch (error) {
      if (jetStreamErrorCode(error) === WRONG_LAST_SEQUENCE) return 'replayed';
      this.bucket = undefined;
      throw new ReplayRecordsUnavailableError(`the replay records cannot be checked: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  private bind(): Promise<KV> {
    // Bound, not made: only the registry may manage streams; a missing bucket fails the put, and the next claim binds again.
    return this.connection.jetstream().views.kv(busNames().replayBucket, { bindOnly: true });
  }
}

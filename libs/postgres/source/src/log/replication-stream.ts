import type { Duplex, DuplexOptions } from 'node:stream';
import { Client, type ClientConfig, type Submittable } from 'pg';
import * as copyStreams from 'pg-copy-streams';
import { FrameQueue, type FrameLimits } from './frame-queue';

/**
 * A message of the streaming replication protocol (PostgreSQL's "Streaming Replication Protocol", START_REPLICATION
 * … LOGICAL): XLogData carrying one pgoutput message, or a primary keepalive telling how far the server has decoded.
 */
export type WalMessage = { kind: 'data'; walStart: bigint; payload: Buffer } | { kind: 'keepalive'; walEnd: bigint; replyRequested: boolean };

type CopyBoth = (text: string, options?: DuplexOptions & { alignOnCopyDataFrame?: boolean }) => Duplex & Submittable;
/** pg-copy-streams' CopyBoth query (its published typings leave it out). */
const copyBoth = (copyStreams as unknown as { both: CopyBoth }).both;

/** Frames held here before the stream is paused and the walsender waits (TCP backpressure): memory stays bounded. */
const BUFFERED: FrameLimits = { bytes: 16 * 1024 * 1024, frames: 4096 };
/** Microseconds between the Unix epoch and PostgreSQL's, 2000-01-01. */
const POSTGRES_EPOCH_MICROS = 946_684_800_000_000n;

/**
 * A logical replication slot read over a walsender connection: the server decodes each WAL record once and keeps its
 * decoding state between messages, where every call of the SQL interface decoded again from the slot's restart point.
 * The slot advances only when `confirm` says a position is processed; a connection that ends before resumes, on the next
 * stream, at the last confirmed position.
 */
export class ReplicationStream {
  private failure: Error | null = null;
  private ended = false;
  /** Frames received and not yet read. */
  private readonly queue: FrameQueue;
  private wake: (() => void) | null = null;
  private confirmed: bigint;

  private constructor(
    private readonly client: Client,
    private readonly frames: Duplex,
    slot: string,
    confirmed: bigint,
  ) {
    this.confirmed = confirmed;
    this.queue = new FrameQueue(BUFFERED, frames);
    frames.on('data', (frame: Buffer) => this.hold(frame));
    frames.on('end', () => this.finish(null));
    frames.on('error', (error: Error) => this.finish(streamFailure(slot, error)));
    client.on('error', (error: Error) => this.finish(streamFailure(slot, error)));
    client.on('end', () => this.finish(null));
  }

  /** Starts streaming `slot` from its confirmed position (`confirmed`), pgoutput protocol 1 over `publication`. */
  static async open(config: ClientConfig, slot: string, publication: string, confirmed: bigint): Promise<ReplicationStream> {
    // pg passes `replication` to the server as a startup parameter (its typings leave it out): a walsender session.
    const client = new Client({ ...config, replication: 'database' } as ClientConfig);
    const early = (error: Error) => void error;
    client.on('error', early);
    try {
      await client.connect();
    } catch (error) {
      await endClient(client);
      throw error instanceof Error ? streamFailure(slot, error) : error;
    }
    // The replication grammar takes plain identifiers and '…' strings only (no E'…'): both names are the service's own.
    if (!/^[a-z0-9_]+$/.test(slot) || !/^[a-z0-9_]+$/.test(publication)) throw new Error(`unexpected slot or publication name: ${slot}, ${publication}`);
    const command = `START_REPLICATION SLOT ${slot} LOGICAL 0/0 (proto_version '1', publication_names '${publication}')`;
    const frames = client.query(copyBoth(command, { alignOnCopyDataFrame: true, readableObjectMode: true, readableHighWaterMark: 1 }));
    client.removeListener('error', early);
    return new ReplicationStream(client, frames, slot, confirmed);
  }

  /** The next message, or null when none came within `timeoutMs`. Throws when the stream failed or ended. */
  async next(timeoutMs: number): Promise<WalMessage | null> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const frame = this.queue.shift();
      if (frame !== undefined) return parseFrame(frame);
      if (this.ended) throw new Error('the replication stream ended');
      if (!(await this.waitForFrame(timeoutMs))) return null;
    }
  }

  /**
   * Tells the server every transaction committed before `lsn` is processed (Standby status update): the slot may move
   * there. Never moves back. With `replyRequested`, the server answers at once with a keepalive saying how far it decoded.
   */
  confirm(lsn: bigint, replyRequested = false): void {
    if (lsn > this.confirmed) this.confirmed = lsn;
    const update = Buffer.alloc(34);
    update.write('r', 0, 'ascii');
    update.writeBigUInt64BE(this.confirmed, 1);
    update.writeBigUInt64BE(this.confirmed, 9);
    update.writeBigUInt64BE(this.confirmed, 17);
    update.writeBigUInt64BE(BigInt(Date.now()) * 1000n - POSTGRES_EPOCH_MICROS, 25);
    update.writeUInt8(replyRequested ? 1 : 0, 33);
    this.frames.write(update);
  }

  get confirmedLsn(): bigint {
    return this.confirmed;
  }

  /** The stream failed or ended: nothing more will come. */
  failed(): boolean {
    return this.ended;
  }

  /** Ends the walsender session; the slot keeps the last confirmed position. */
  async close(): Promise<void> {
    this.finish(new Error('the replication stream was closed'));
    await endClient(this.client);
  }

  private waitForFrame(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(false);
      }, timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(true);
      };
    });
  }

  private hold(frame: Buffer): void {
    this.queue.push(frame);
    this.notify();
  }

  private notify(): void {
    this.wake?.();
  }

  private finish(error: Error | null): void {
    if (error !== null && this.failure === null) this.failure = error;
    this.ended = true;
    this.notify();
  }
}

/** How long ending a session may take before its socket is simply closed. */
const END_WAIT_MS = 2_000;

/**
 * Ends a pg client's session, closing its socket if that does not happen soon: after a refused connection or a
 * server-ended session, pg's `end()` may wait for an 'end' event that has already passed.
 */
export async function endClient(client: Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      resolve();
    }, END_WAIT_MS);
  });
  try {
    await Promise.race([client.end().catch(() => undefined), closed]);
  } finally {
    clearTimeout(timer);
  }
}

/** too_many_connections: every walsender place (max_wal_senders) taken. */
const TOO_MANY_CONNECTIONS = '53300';

/** The server's or the connection's error, saying which slot's stream it ended and, where it helps, what to do. */
function streamFailure(slot: string, error: Error): Error {
  const code = (error as { code?: unknown }).code;
  const advice = code === TOO_MANY_CONNECTIONS ? ' (raise max_wal_senders, or end walsenders that are not needed: pg_stat_replication)' : '';
  return new Error(`the stream of replication slot ${slot} failed: ${error.message}${advice}`, { cause: error });
}

/** XLogData ('w': start, end, clock, payload) or a primary keepalive ('k': end, clock, reply requested). */
export function parseFrame(frame: Buffer): WalMessage {
  const tag = String.fromCharCode(frame.readUInt8(0));
  if (tag === 'w' && frame.length >= 25) return { kind: 'data', walStart: frame.readBigUInt64BE(1), payload: frame.subarray(25) };
  if (tag === 'k' && frame.length >= 18) return { kind: 'keepalive', walEnd: frame.readBigUInt64BE(1), replyRequested: frame.readUInt8(17) === 1 };
  throw new Error(`unexpected replication message '${tag}' of ${frame.length} bytes`);
}

import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type ClientConfig } from 'pg';
import { copyIn } from '@svc/postgres/common';
import { inChangeSchema, quoteIdent } from '../identifiers';
import { parseVersion } from '../versions';
import { ChangeRecordBuilder, fullTransactionId, type LogFailure, type LogTable, type TableRecords } from './change-records';
import {
  DROP_SLOT_SQL,
  IDENTITY_LOST_SQL,
  LOG_REGISTRY_EXISTS_SQL,
  LOG_TABLES_SQL,
  PUBLICATION,
  RECORD_LOG_FAILURE_SQL,
  RELAY_CHANNEL,
  RELAY_TARGET_SQL,
  RELAY_UNLOCK_SQL,
  SAVE_RELAY_POSITION_SQL,
  SLOT_STATE_SQL,
  TRY_RELAY_LOCK_SQL,
  WAL_FLUSHED_SQL,
} from './log-sql';
import { decodePgOutput } from './pgoutput';
import { ReplicationStream, endClient } from './replication-stream';
import { ensureSlot, isPublicationMissing, slotIdle, slotName } from './slot';

export interface LeaderOptions {
  /** Messages relayed per source transaction of this connection (whole source transactions: a larger one is taken whole). */
  chunkMessages: number;
  /** Whether the relay should stop (its pool was ended). */
  abandoned: () => boolean;
}

const FLUSH_RECORDS = 50_000;
/** An asynchronous commit reaches the disk within three wal_writer_delay (200 ms by default); waited for at most this. */
const WAL_FLUSH_WAIT_MS = 2_000;
const WAL_FLUSH_POLL_MS = 20;
/** How often a round asks the walsender how far it has decoded, while it has nothing to send. */
const ASK_INTERVAL_MS = 50;
/** A walsender that answers nothing for this long (not even a keepalive) is given up. */
const SILENCE_LIMIT_MS = 30_000;
/** Between rounds: how often the leader answers the walsender (it ends a session silent for wal_sender_timeout, 60 s by default). */
const HEARTBEAT_MS = 1_000;
/** An idle leader relays this often anyway: an idle database's slot still moves, and other processes' reads see a fresh horizon. */
const IDLE_ROUND_MS = 5_000;
/** A killed leader's walsender ends when the server notices its connection is gone; a new stream waits that long at most. */
const SLOT_RELEASE_WAIT_MS = 10_000;

/**
 * The relay of one source database's slot in this process: a connection holding the relay lock (one leader per
 * database across every process) that writes the key records, and a walsender stream of the slot. A round reads the
 * stream up to the WAL position of its start, writes the records, publishes the horizon (log_position) in the same
 * transaction, commits, and only then confirms the position to the walsender: a crash anywhere loses nothing, and
 * records written twice are the same keys again, which a net-change read folds. Other processes that need a fresh
 * horizon notify RELAY_CHANNEL; the leader also relays every IDLE_ROUND_MS on its own.
 */
export class RelayLeader {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private closed = false;
  private lastRoundAt = Date.now();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly builder = new ChangeRecordBuilder(new Map(), (xid) => BigInt(xid));
  /** Only key columns are decoded from the log: the records keep nothing else. */
  private readonly wantedColumns = (relid: number) => this.builder.wantedColumns(relid);

  private constructor(
    private readonly writer: Client,
    private readonly stream: ReplicationStream,
    private readonly slot: string,
    private readonly options: LeaderOptions,
    private readonly onClose: () => void,
  ) {
    this.heartbeat = setInterval(() => this.tick(), HEARTBEAT_MS);
    this.heartbeat.unref();
    writer.on('notification', () => void this.relay().catch(() => undefined));
    writer.on('error', () => void this.close());
  }

  /**
   * Becomes the database's leader, or null when another session holds the relay lock or nothing is captured from the
   * log here. Creates (or recreates) the slot when missing or lost, which restarts every log-captured table.
   */
  static async lead(config: ClientConfig, options: LeaderOptions, onClose: () => void): Promise<RelayLeader | null> {
    const writer = new Client(config);
    writer.on('error', () => undefined);
    try {
      await writer.connect();
    } catch (error) {
      await endClient(writer);
      throw error;
    }
    let stream: ReplicationStream | null = null;
    try {
      if ((await writer.query<{ locked: boolean }>(TRY_RELAY_LOCK_SQL)).rows[0]?.locked !== true) throw new NotLeading();
      if ((await writer.query<{ exists: boolean }>(LOG_REGISTRY_EXISTS_SQL)).rows[0]?.exists !== true) throw new NotLeading();
      if ((await logTables(writer)).size === 0) throw new NotLeading();
      const slot = await slotName(writer);
      await ensureSlot(writer, slot);
      stream = await ReplicationStream.open(config, slot, PUBLICATION, await confirmedPosition(writer, slot));
      await writer.query(`listen ${RELAY_CHANNEL}`);
      return new RelayLeader(writer, stream, slot, options, onClose);
    } catch (error) {
      await stream?.close();
      await endClient(writer);
      if (error instanceof NotLeading) return null;
      throw error;
    }
  }

  /** A round that starts after this call (rounds run one at a time; callers that arrive together share one). */
  relay(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the relay leader was closed'));
    if (this.queued !== null) return this.queued;
    const previous = this.running?.catch(() => undefined) ?? Promise.resolve();
    const next = previous.then(() => {
      this.queued = null;
      const round = this.round();
      this.running = round;
      return round;
    });
    this.queued = next;
    return next;
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Ends the stream (the slot keeps the last confirmed position) and the writer's session, which releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.onClose();
    await this.stream.close();
    await this.writer.query(RELAY_UNLOCK_SQL).catch(() => undefined);
    await endClient(this.writer);
  }

  private tick(): void {
    if (this.closed) return;
    if (this.options.abandoned() || this.stream.failed()) {
      void this.close();
      return;
    }
    if (this.running === null && this.queued === null && Date.now() - this.lastRoundAt >= IDLE_ROUND_MS) {
      void this.relay().catch(() => undefined);
      return;
    }
    // Between rounds nothing reads the stream: a status update keeps the walsender from timing the session out.
    if (this.running === null) this.stream.confirm(this.stream.confirmedLsn);
  }

  private async round(): Promise<void> {
    try {
      await this.relayOnce();
      this.lastRoundAt = Date.now();
    } catch (error) {
      if (isPublicationMissing(error)) await this.dropUnreadableSlot();
      await this.close();
      throw error;
    } finally {
      this.running = null;
    }
  }

  /**
   * A slot whose stream can never get past a change decoded before the publication existed is dropped (its walsender
   * ended first): the next leader makes it anew, which restarts every log-captured table (each reseeded with its
   * alert), as a lost slot does, instead of failing every read for ever.
   */
  private async dropUnreadableSlot(): Promise<void> {
    await this.stream.close();
    if (await slotIdle(this.writer, this.slot)) await this.writer.query(DROP_SLOT_SQL, [this.slot]).catch(() => undefined);
  }

  private async relayOnce(): Promise<void> {
    if ((await this.writer.query<{ exists: boolean }>(LOG_REGISTRY_EXISTS_SQL)).rows[0]?.exists !== true) return this.close();
    const tables = await logTables(this.writer);
    // Nothing captured from the log any more: the lock and the slot are released, so that the slot can be dropped.
    if (tables.size === 0) return this.close();
    await unpublishLostIdentities(this.writer);
    const target = (await this.writer.query<{ horizon: string; lsn: string }>(RELAY_TARGET_SQL)).rows[0];
    if (target === undefined || !(await walFlushed(this.writer, target.lsn))) return;
    const horizon = parseVersion(target.horizon, 'relay horizon');
    this.builder.nextRound(tables, (xid) => fullTransactionId(xid, horizon));
    await this.inTransaction(async () => {
      const reached = await this.readUpTo(parseLsn(target.lsn));
      await writeRecords(this.writer, this.builder.take());
      await this.writer.query(SAVE_RELAY_POSITION_SQL, [this.slot, target.horizon, target.lsn]);
      return reached;
    });
  }

  /**
   * Reads the stream until every transaction committed before `target` is in the builder (a Commit ending at or after
   * it, or a keepalive at or after it between transactions), committing whole source transactions every
   * `chunkMessages` messages. Returns the position that may be confirmed once the records are committed.
   */
  private async readUpTo(target: bigint): Promise<bigint> {
    let safe = this.stream.confirmedLsn;
    let messages = 0;
    let heardAt = Date.now();
    this.ask();
    for (;;) {
      const message = await this.stream.next(ASK_INTERVAL_MS);
      if (message === null) {
        if (Date.now() - heardAt > SILENCE_LIMIT_MS) throw new Error(`the walsender of slot ${this.slot} sent nothing for ${SILENCE_LIMIT_MS} ms`);
        this.ask();
        continue;
      }
      heardAt = Date.now();
      if (message.kind === 'keepalive') {
        if (!this.builder.insideTransaction() && message.walEnd >= target) return message.walEnd > safe ? message.walEnd : safe;
        if (message.replyRequested) this.ask();
        continue;
      }
      const decoded = decodePgOutput(message.payload, this.wantedColumns);
      this.builder.add(decoded);
      messages += 1;
      if (decoded.type !== 'commit') {
        if (this.builder.pendingRecords() >= FLUSH_RECORDS) await writeRecords(this.writer, this.builder.take());
        continue;
      }
      if (decoded.endLsn > safe) safe = decoded.endLsn;
      if (decoded.endLsn >= target) return safe;
      if (messages >= this.options.chunkMessages) {
        await this.commitChunk(safe);
        messages = 0;
      }
    }
  }

  /** Commits the records of the transactions read so far (not the horizon: the round has not reached its target) and confirms them. */
  private async commitChunk(safe: bigint): Promise<void> {
    await writeRecords(this.writer, this.builder.take());
    await this.writer.query('commit');
    this.stream.confirm(safe);
    await this.writer.query('begin');
  }

  /** Asks the walsender where it stands, confirming nothing new: records not yet committed must not move the slot. */
  private ask(): void {
    this.stream.confirm(this.stream.confirmedLsn, true);
  }

  private async inTransaction(work: () => Promise<bigint>): Promise<void> {
    await this.writer.query('begin');
    let reached: bigint;
    try {
      reached = await work();
      await this.writer.query('commit');
    } catch (error) {
      await this.writer.query('rollback').catch(() => undefined);
      throw error;
    }
    this.stream.confirm(reached);
  }
}

class NotLeading extends Error {}

/**
 * Where the slot's stream starts. A slot still held by a walsender of a leader that died (its server session not ended
 * yet) is waited for: the server ends that session as soon as it notices the connection is gone.
 */
async function confirmedPosition(client: Client, slot: string): Promise<bigint> {
  const deadline = Date.now() + SLOT_RELEASE_WAIT_MS;
  for (;;) {
    const state = (await client.query<{ confirmed: string | null; active: boolean }>(SLOT_STATE_SQL, [slot])).rows[0];
    if (state === undefined) throw new Error(`replication slot ${slot} does not exist`);
    if (!state.active || Date.now() >= deadline) return state.confirmed === null ? 0n : parseLsn(state.confirmed);
    await sleep(100);
  }
}

/** The log-captured tables of the registry, by the relation oid the log names them by. */
async function logTables(client: Client): Promise<Map<number, LogTable>> {
  const rows = (await client.query<{ schema: string; name: string; change_table: string; relid: string; keys: { name: string; type: string }[] }>(LOG_TABLES_SQL)).rows;
  const tables = new Map<number, LogTable>();
  for (const row of rows) {
    if (row.keys.length > 0) tables.set(Number(row.relid), { schema: row.schema, name: row.name, changeTable: row.change_table, keys: row.keys });
  }
  return tables;
}

/**
 * Takes out of the publication every table whose UPDATEs and DELETEs it would make fail (its primary key dropped, its
 * replica identity set to NOTHING or another index), and marks each for reseed: tracking it again uses triggers.
 */
async function unpublishLostIdentities(client: Client): Promise<void> {
  const lost = await client.query<{ qualified: string; schema: string | null; name: string | null }>(IDENTITY_LOST_SQL);
  for (const table of lost.rows) {
    await client.query(`alter publication ${PUBLICATION} drop table ${table.qualified}`);
    if (table.schema !== null && table.name !== null) {
      const xid = (await client.query<{ xid: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as xid')).rows[0]?.xid ?? '0';
      await client.query(RECORD_LOG_FAILURE_SQL, [table.schema, table.name, xid, 'its primary key or replica identity was removed: the log cannot give its keys']);
    }
  }
}

async function walFlushed(client: Client, lsn: string): Promise<boolean> {
  for (let waited = 0; ; waited += WAL_FLUSH_POLL_MS) {
    if ((await client.query<{ flushed: boolean }>(WAL_FLUSHED_SQL, [lsn])).rows[0]?.flushed === true) return true;
    if (waited >= WAL_FLUSH_WAIT_MS) return false;
    await sleep(WAL_FLUSH_POLL_MS);
  }
}

/** Every change table's records (one COPY each) and the failures found, in the caller's transaction. */
async function writeRecords(client: Client, built: { records: TableRecords[]; failures: LogFailure[] }): Promise<void> {
  for (const records of built.records) {
    const keys = records.table.keys.map((key) => quoteIdent(key.name)).join(', ');
    await copyIn(client, `copy ${inChangeSchema(records.table.changeTable)} (${keys}, svc_op, svc_xid) from stdin (format csv)`, chunksOf(recordsCsv(records)));
  }
  for (const failure of built.failures) await client.query(RECORD_LOG_FAILURE_SQL, [failure.table.schema, failure.table.name, failure.xid, failure.reason]);
}

/**
 * The records as CSV: each key value quoted (the log gives every value as its type's text output, which the column's
 * input function reads back as an INSERT's cast from text did; quoted, an empty string stays one), then op and xid.
 */
export function recordsCsv(records: TableRecords): Buffer {
  const lines: string[] = [];
  for (let row = 0; row < records.ops.length; row += 1) {
    const keys = records.keyValues.map((values) => `"${(values[row] ?? '').replace(/"/g, '""')}"`);
    lines.push(`${keys.join(',')},${records.ops[row] ?? ''},${records.xids[row] ?? ''}\n`);
  }
  return Buffer.from(lines.join(''), 'utf8');
}

async function* chunksOf(buffer: Buffer): AsyncIterable<Buffer> {
  yield buffer;
}

/** A pg_lsn's text ('16/B374D848') as a number. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (match === null) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

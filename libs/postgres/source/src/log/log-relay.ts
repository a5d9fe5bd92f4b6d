import { withPoolConnections } from '@svc/engines';
import type { Pool, PoolClient } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { inChangeSchema, quoteIdent } from '../identifiers';
import { parseVersion } from '../versions';
import { ChangeRecordBuilder, fullTransactionId, type LogFailure, type LogTable, type TableRecords } from './change-records';
import {
  ADVANCE_SLOT_SQL,
  CREATE_SLOT_SQL,
  DROP_SLOT_SQL,
  IDENTITY_LOST_SQL,
  LOG_TABLES_SQL,
  peekChangesSql,
  PUBLICATION,
  RECORD_LOG_FAILURE_SQL,
  RELAY_LOCK_SQL,
  RELAY_TARGET_SQL,
  RELAY_UNLOCK_SQL,
  RESTART_LOG_TABLES_SQL,
  RESTART_RELAY_POSITION_SQL,
  SAVE_RELAY_POSITION_SQL,
  SLOT_NAME_SQL,
  SLOT_STATE_SQL,
  SLOT_IDLE_SQL,
  LOG_REGISTRY_EXISTS_SQL,
  ANY_LOG_TABLE_SQL,
  TRY_RELAY_LOCK_SQL,
  WAL_FLUSHED_SQL,
} from './log-sql';
import { decodePgOutput } from './pgoutput';

export interface RelayOptions {
  /** A relay that ended less than this ago is not repeated (the horizon it published stands); always relays when absent. */
  minIntervalMs?: number;
  /** Messages decoded per round, one transaction each (whole source transactions: a larger one is taken whole). Default 100,000. */
  chunkMessages?: number;
}

const DEFAULT_CHUNK_MESSAGES = 100_000;
const FETCH_MESSAGES = 500;
/** When this process's last relay of each source's database ended. */
const lastRelayEnded = new WeakMap<Pool, number>();
const FLUSH_RECORDS = 50_000;
/** An asynchronous commit reaches the disk within three wal_writer_delay (200 ms by default); waited for at most this. */
const WAL_FLUSH_WAIT_MS = 2_000;
const WAL_FLUSH_POLL_MS = 20;
const DUPLICATE_OBJECT = '42710';
/** statement_timeout */
const QUERY_CANCELED = '57014';
/** A new slot waits for the transactions running when it is made; a relay that recreates a lost one waits this long. */
const SLOT_CREATION_TIMEOUT_MS = 30_000;

/**
 * Moves the database's log into its change tables: decodes the slot's changes (pgoutput) up to now, writes their key
 * records, commits, and only then advances the slot; at the end it publishes a horizon below which every transaction
 * is in the change tables (log_position.relayed_horizon), the horizon a change read of a log-captured table stops at.
 * So a crash anywhere loses nothing: records written twice (committed, slot not yet advanced) are the same keys again,
 * which a net-change read folds. One relay at a time per database (a session advisory lock): a caller that finds one
 * running returns at once, as that relay moves the horizon. Every probe and change read relays first, so an idle
 * database's slot still advances (its WAL is released) whenever the service probes it.
 */
export async function relayLog(pool: Pool, options: RelayOptions = {}): Promise<void> {
  // A relay that ended a moment ago moved the horizon already (the change probe asks this: it runs every 250 ms).
  const last = lastRelayEnded.get(pool);
  if (last !== undefined && options.minIntervalMs !== undefined && Date.now() - last < options.minIntervalMs) return;
  await withPoolConnections(pool, 1, async () => {
    const client = await pool.connect();
    let locked = false;
    try {
      locked = (await client.query<{ locked: boolean }>(TRY_RELAY_LOCK_SQL)).rows[0]?.locked === true;
      if (locked) await relayLocked(client, options.chunkMessages ?? DEFAULT_CHUNK_MESSAGES);
      if (locked) await client.query(RELAY_UNLOCK_SQL);
      if (locked) lastRelayEnded.set(pool, Date.now());
      client.release();
    } catch (error) {
      // The session lock goes with the discarded session.
      client.release(true);
      throw error;
    }
  });
}

async function relayLocked(client: PoolClient, chunkMessages: number): Promise<void> {
  if ((await client.query<{ exists: boolean }>(LOG_REGISTRY_EXISTS_SQL)).rows[0]?.exists !== true) return;
  const tables = await logTables(client);
  if (tables.size === 0) return;
  const slot = await slotName(client);
  if (await ensureSlot(client, slot)) return;
  await unpublishLostIdentities(client);
  const target = (await client.query<{ horizon: string; lsn: string }>(RELAY_TARGET_SQL)).rows[0];
  if (target === undefined) return;
  if (!(await walFlushed(client, target.lsn))) return;
  const horizon = parseVersion(target.horizon, 'relay horizon');
  const builder = new ChangeRecordBuilder(tables, (xid) => fullTransactionId(xid, horizon));
  for (;;) {
    const round = await relayRound(client, slot, target.lsn, chunkMessages, builder);
    if (round.end !== null) await client.query(ADVANCE_SLOT_SQL, [slot, lsnText(round.end)]);
    if (round.messages < chunkMessages) break;
  }
  await client.query(ADVANCE_SLOT_SQL, [slot, target.lsn]);
  await client.query(SAVE_RELAY_POSITION_SQL, [slot, target.horizon, target.lsn]);
}

/**
 * One peek of at most about `chunkMessages` messages (whole transactions), read through a cursor FETCH_MESSAGES at a
 * time (the server keeps the decoded messages, so a round of wide rows holds only one fetch in memory here), and its
 * key records written in the same transaction, every FLUSH_RECORDS records. Returns the number of messages and the
 * end of the last transaction: the slot may move there once this has committed.
 */
async function relayRound(client: PoolClient, slot: string, upTo: string, chunkMessages: number, builder: ChangeRecordBuilder): Promise<{ messages: number; end: bigint | null }> {
  let messages = 0;
  let end: bigint | null = null;
  await client.query('begin');
  try {
    await client.query(`declare svc_relay no scroll cursor for ${peekChangesSql(slot, upTo, chunkMessages)}`);
    for (;;) {
      const rows = (await client.query<{ data: Buffer }>(`fetch ${FETCH_MESSAGES} from svc_relay`)).rows;
      if (rows.length === 0) break;
      for (const row of rows) {
        const message = decodePgOutput(row.data);
        if (message.type === 'commit') end = message.endLsn;
        builder.add(message);
      }
      messages += rows.length;
      if (builder.pendingRecords() >= FLUSH_RECORDS) await writeRecords(client, builder.take());
    }
    await client.query('close svc_relay');
    await writeRecords(client, builder.take());
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
  return { messages, end };
}

/** The database's slot: `svc_ct_<database oid>`. */
export async function slotName(client: PoolClient | Pool): Promise<string> {
  const row = (await client.query<{ slot: string }>(SLOT_NAME_SQL)).rows[0];
  if (row === undefined) throw new Error('the current database is not in pg_database');
  return row.slot;
}

/**
 * Creates the slot when it is missing, or lost (invalidated by max_slot_wal_keep_size): true when it did. Changes
 * from before a new slot are gone, so every log-captured table's minimum valid version moves to now (their reads
 * reseed them, each with its Reseed alert) — never a silent gap. Creating a slot waits for the transactions running
 * then to end (the statement's timeout bounds it), and cannot be done in a transaction that has written.
 */
export async function ensureSlot(client: PoolClient, slot: string, timeoutMs = SLOT_CREATION_TIMEOUT_MS): Promise<boolean> {
  const state = (await client.query<{ wal_status: string | null }>(SLOT_STATE_SQL, [slot])).rows[0];
  if (state !== undefined && state.wal_status !== 'lost') return false;
  if (state !== undefined) await client.query(DROP_SLOT_SQL, [slot]);
  try {
    await client.query('begin');
    await client.query(`set local statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
    await client.query(CREATE_SLOT_SQL, [slot]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    const code = (error as { code?: unknown }).code;
    // Created meanwhile by a concurrent enableTracking: that one moved the versions.
    if (code === DUPLICATE_OBJECT) return false;
    if (code === QUERY_CANCELED) {
      throw new Error(
        `creating replication slot ${slot} waited more than ${timeoutMs} ms for the transactions running on the server to end: end long-running or idle-in-transaction sessions (pg_stat_activity), and it is tried again`,
        { cause: error },
      );
    }
    throw error;
  }
  // The first slot of the database is made before its registry: nothing to restart then.
  if ((await client.query<{ exists: boolean }>(LOG_REGISTRY_EXISTS_SQL)).rows[0]?.exists !== true) return true;
  const target = (await client.query<{ horizon: string; lsn: string }>(RELAY_TARGET_SQL)).rows[0];
  if (target === undefined) throw new Error('no relay target');
  await client.query('begin');
  try {
    await client.query(RESTART_LOG_TABLES_SQL, [target.horizon]);
    await client.query(SAVE_RELAY_POSITION_SQL, [slot, target.horizon, target.lsn]);
    await client.query(RESTART_RELAY_POSITION_SQL, [slot, target.horizon, target.lsn]);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
  return true;
}

/**
 * Takes out of the publication every table whose UPDATEs and DELETEs it would make fail (its primary key dropped, its
 * replica identity set to NOTHING or another index), and marks each for reseed: tracking it again uses triggers.
 */
async function unpublishLostIdentities(client: PoolClient): Promise<void> {
  const lost = await client.query<{ qualified: string; schema: string | null; name: string | null }>(IDENTITY_LOST_SQL);
  for (const table of lost.rows) {
    await client.query(`alter publication ${PUBLICATION} drop table ${table.qualified}`);
    if (table.schema !== null && table.name !== null) {
      const xid = (await client.query<{ xid: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as xid')).rows[0]?.xid ?? '0';
      await client.query(RECORD_LOG_FAILURE_SQL, [table.schema, table.name, xid, 'its primary key or replica identity was removed: the log cannot give its keys']);
    }
  }
}

async function logTables(client: PoolClient): Promise<Map<number, LogTable>> {
  const rows = (await client.query<{ schema: string; name: string; change_table: string; relid: string; keys: { name: string; type: string }[] }>(LOG_TABLES_SQL)).rows;
  const tables = new Map<number, LogTable>();
  for (const row of rows) {
    if (row.keys.length > 0) tables.set(Number(row.relid), { schema: row.schema, name: row.name, changeTable: row.change_table, keys: row.keys });
  }
  return tables;
}

async function walFlushed(client: PoolClient, lsn: string): Promise<boolean> {
  for (let waited = 0; ; waited += WAL_FLUSH_POLL_MS) {
    if ((await client.query<{ flushed: boolean }>(WAL_FLUSHED_SQL, [lsn])).rows[0]?.flushed === true) return true;
    if (waited >= WAL_FLUSH_WAIT_MS) return false;
    await sleep(WAL_FLUSH_POLL_MS);
  }
}

/** Every change table's records (one INSERT each) and the failures found, in the caller's transaction. */
async function writeRecords(client: PoolClient, built: { records: TableRecords[]; failures: LogFailure[] }): Promise<void> {
  for (const records of built.records) {
    const { sql, values } = insertRecordsSql(records);
    await client.query(sql, values);
  }
  for (const failure of built.failures) await client.query(RECORD_LOG_FAILURE_SQL, [failure.table.schema, failure.table.name, failure.xid, failure.reason]);
}

function insertRecordsSql(records: TableRecords): { sql: string; values: string[][] } {
  const keys = records.table.keys;
  const columns = keys.map((_, index) => `k${index}`);
  const parameters = [...columns, 'op', 'xid'].map((_, index) => `$${index + 1}::text[]`);
  const sql = `insert into ${inChangeSchema(records.table.changeTable)} (${keys.map((key) => quoteIdent(key.name)).join(', ')}, svc_op, svc_xid)
select ${keys.map((key, index) => `u.k${index}::${key.type}`).join(', ')}, u.op, u.xid::xid8
from unnest(${parameters.join(', ')}) as u(${[...columns, 'op', 'xid'].join(', ')})`;
  return { sql, values: [...records.keyValues, records.ops, records.xids] };
}

/**
 * Drops the database's slot when no table is captured from the log any more (the last one released, or all of them
 * moved to triggers), so that it holds no WAL. Waits at most `lockTimeoutMs` for a relay in progress.
 */
export async function dropUnusedSlot(pool: Pool, lockTimeoutMs: number): Promise<void> {
  await withPoolConnections(pool, 1, async () => {
    const client = await pool.connect();
    try {
      await client.query(`set lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
      await client.query(RELAY_LOCK_SQL);
      const slot = await slotName(client);
      const idle = (await client.query<{ idle: boolean }>(SLOT_IDLE_SQL, [slot])).rows[0]?.idle === true;
      if (idle && !(await anyLogTable(client))) await client.query(DROP_SLOT_SQL, [slot]);
      await client.query(RELAY_UNLOCK_SQL);
      await client.query('reset lock_timeout');
      client.release();
    } catch (error) {
      client.release(true);
      throw error;
    }
  });
}

async function anyLogTable(client: PoolClient): Promise<boolean> {
  if ((await client.query<{ exists: boolean }>(LOG_REGISTRY_EXISTS_SQL)).rows[0]?.exists !== true) return false;
  return (await client.query<{ any: boolean }>(ANY_LOG_TABLE_SQL)).rows[0]?.any === true;
}

function lsnText(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

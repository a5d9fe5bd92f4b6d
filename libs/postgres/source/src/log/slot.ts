import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientBase, Pool } from 'pg';
import {
  CREATE_PUBLICATION_SQL,
  CREATE_SLOT_SQL,
  DROP_SLOT_SQL,
  LOG_REGISTRY_EXISTS_SQL,
  RELAY_TARGET_SQL,
  RESTART_LOG_TABLES_SQL,
  RESTART_RELAY_POSITION_SQL,
  SAVE_RELAY_POSITION_SQL,
  SLOT_NAME_SQL,
  SLOT_STATE_SQL,
} from './log-sql';

const DUPLICATE_OBJECT = '42710';
/** statement_timeout */
const QUERY_CANCELED = '57014';
/** A new slot waits for the transactions running when it is made; a relay that recreates a lost one waits this long. */
const SLOT_CREATION_TIMEOUT_MS = 30_000;

/** How long a drop waits for the slot's last walsender to end. */
const SLOT_IDLE_WAIT_MS = 5_000;

/** Whether the slot exists and no walsender holds it, waiting a little for the last one to end. */
export async function slotIdle(client: ClientBase, slot: string, waitMs = SLOT_IDLE_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = (await client.query<{ active: boolean }>(SLOT_STATE_SQL, [slot])).rows[0];
    if (state === undefined) return false;
    if (!state.active) return true;
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
}

/**
 * Whether a stream failed because pgoutput found no publication as of a change it decoded (undefined_object): the
 * slot's WAL holds changes from before the publication existed (a slot made by an earlier version before the
 * publication, or the publication dropped and made again while the slot lived). Such a slot can never be read past them.
 */
export function isPublicationMissing(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as { code?: unknown }).code === '42704' && /publication/.test(cause.message)) return true;
  }
  return false;
}

/** The database's slot: `svc_ct_<database oid>`. */
export async function slotName(client: ClientBase | Pool): Promise<string> {
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
export async function ensureSlot(client: ClientBase, slot: string, timeoutMs = SLOT_CREATION_TIMEOUT_MS): Promise<boolean> {
  const state = (await client.query<{ wal_status: string | null }>(SLOT_STATE_SQL, [slot])).rows[0];
  if (state !== undefined && state.wal_status !== 'lost') return false;
  if (state !== undefined) await client.query(DROP_SLOT_SQL, [slot]);
  // pgoutput looks the publication up as of each change it decodes: a change between the slot's start and the
  // publication's creation fails the stream for good ("publication does not exist"). So it exists first.
  await client.query(CREATE_PUBLICATION_SQL);
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


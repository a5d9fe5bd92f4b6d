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


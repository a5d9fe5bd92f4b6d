import { setTimeout as sleep } from 'node:timers/promises';
import { withPoolConnections } from '@svc/engines';
import type { ClientBase, ClientConfig, Pool, PoolClient } from 'pg';
import { parseVersion } from '../versions';
import {
  ANY_LOG_TABLE_SQL,
  DROP_SLOT_SQL,
  END_RELAY_SESSIONS_SQL,
  LOG_REGISTRY_EXISTS_SQL,
  RELAYED_HORIZON_SQL,
  RELAY_LOCK_SQL,
  RELAY_TARGET_SQL,
  RELAY_UNLOCK_SQL,
  REQUEST_RELAY_SQL,
  TRY_RELAY_LOCK_SQL,
} from './log-sql';
import { RelayLeader } from './relay-leader';
import { slotIdle, slotName } from './slot';

export { ensureSlot, slotName } from './slot';

export interface RelayOptions {
  /** A relay that ended less than this ago is not repeated (the horizon it published stands); always relays when absent. */
  minIntervalMs?: number;
  /** Messages relayed per source transaction of the relay (whole source transactions: a larger one is taken whole). Default 100,000. */
  chunkMessages?: number;
}

const DEFAULT_CHUNK_MESSAGES = 100_000;
/** How long a read waits for a relay round (of this process's leader, or another's) before reading with the published horizon. */
const ROUND_WAIT_MS = 5_000;
const FOLLOWER_POLL_MS = 25;
/** How long a dropped slot's last walsender may take to end. */

/** This process's relay leader of each source's database, and one being started. */
const leaders = new WeakMap<Pool, RelayLeader>();
const starting = new WeakMap<Pool, Promise<RelayLeader | null>>();
/** When this process's last relay of each source's database ended. */
const lastRelayEnded = new WeakMap<Pool, number>();

/**
 * Brings the database's change tables up to now: every transaction committed before this call is in them, and the
 * horizon below which every transaction is (log_position.relayed_horizon) has moved past it — the horizon a change
 * read of a log-captured table stops at. One leader per database relays (relay-leader.ts): in this process, a round
 * of it; in another, it is asked (NOTIFY) and waited for, at most ROUND_WAIT_MS (a read then goes as far as the
 * published horizon, and the next one further).
 */
export async function relayLog(pool: Pool, options: RelayOptions = {}): Promise<void> {
  const last = lastRelayEnded.get(pool);
  if (last !== undefined && options.minIntervalMs !== undefined && Date.now() - last < options.minIntervalMs) return;
  for (let attempt = 1; ; attempt += 1) {
    const leader = await leaderOf(pool, options);
    try {
      if (leader !== null) await roundWithin(leader, ROUND_WAIT_MS);
      else await followLeader(pool);
      lastRelayEnded.set(pool, Date.now());
      return;
    } catch (error) {
      // A leader whose stream or session went away (the server ended it, a slot dropped by hand) is replaced once.
      if (attempt >= 2 || leader === null || !leader.isClosed()) throw error;
    }
  }
}

/**
 * A round of this process's leader, waited for at most `limitMs`: one may have to wait for a long round in progress
 * (a transaction of millions of rows), and a read or probe then goes as far as the published horizon.
 */
async function roundWithin(leader: RelayLeader, limitMs: number): Promise<void> {
  const round = leader.relay();
  round.catch(() => undefined);
  const timer = new AbortController();
  try {
    await Promise.race([round, sleep(limitMs, undefined, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

/** Stops this process's relay of the pool's database (the pool is closing, or its slot is to be dropped). */
export async function stopRelay(pool: Pool): Promise<void> {
  await starting.get(pool)?.catch(() => undefined);
  await leaders.get(pool)?.close();
}

async function leaderOf(pool: Pool, options: RelayOptions): Promise<RelayLeader | null> {
  const current = leaders.get(pool);
  if (current !== undefined && !current.isClosed()) return current;
  const pending = starting.get(pool);
  if (pending !== undefined) return pending;
  const started = startLeader(pool, options).finally(() => starting.delete(pool));
  starting.set(pool, started);
  return started;
}

async function startLeader(pool: Pool, options: RelayOptions): Promise<RelayLeader | null> {
  // A pooled session tells cheaply whether another process leads (most calls of a follower end here).
  if (!(await relayLockFree(pool))) return null;
  const config = pool.options as ClientConfig;
  const leader = await RelayLeader.lead(
    config,
    { chunkMessages: options.chunkMessages ?? DEFAULT_CHUNK_MESSAGES, abandoned: () => pool.ending || pool.ended },
    () => {
      if (leaders.get(pool) === leader) leaders.delete(pool);
    },
  );
  if (leader !== null) leaders.set(pool, leader);
  return leader;
}

async function relayLockFree(pool: Pool): Promise<boolean> {
  return withPoolConnections(pool, 1, async () => {
    const client = await pool.connect();
    try {
      const free = (await client.query<{ locked: boolean }>(TRY_RELAY_LOCK_SQL)).rows[0]?.locked === true;
      if (free) await client.query(RELAY_UNLOCK_SQL);
      client.release();
      return free;
    } catch (error) {
      client.release(true);
      throw error;
    }
  });
}

/** Asks the leader of another process for a round and waits until the horizon it publishes passes this moment's. */
async function followLeader(pool: Pool): Promise<void> {
  if (!(await anyLogTable(pool))) return;
  const target = (await pool.query<{ horizon: string }>(RELAY_TARGET_SQL)).rows[0];
  if (target === undefined) return;
  const wanted = parseVersion(target.horizon, 'relay target');
  await pool.query(REQUEST_RELAY_SQL);
  const deadline = Date.now() + ROUND_WAIT_MS;
  while (Date.now() < deadline) {
    const row = (await pool.query<{ horizon: string }>(RELAYED_HORIZON_SQL)).rows[0];
    if (row !== undefined && parseVersion(row.horizon, 'relayed horizon') >= wanted) return;
    await sleep(FOLLOWER_POLL_MS);
  }
}

/**
 * Drops the database's slot when no table is captured from the log any more (the last one released, or all of them
 * moved to triggers), so that it holds no WAL. This process's relay stops first; another process's leader is asked
 * for a round, in which it finds nothing to capture and stops; its lock is waited for at most `lockTimeoutMs`.
 */
export async function dropUnusedSlot(pool: Pool, lockTimeoutMs: number): Promise<void> {
  if (await anyLogTable(pool)) return;
  await stopRelay(pool);
  await withPoolConnections(pool, 1, async () => {
    const client = await pool.connect();
    try {
      await client.query(REQUEST_RELAY_SQL);
      await client.query(`set lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
      await client.query(RELAY_LOCK_SQL);
      const slot = await slotName(client);
      if (!(await anyLogTable(client)) && (await slotIdle(client, slot))) await client.query(DROP_SLOT_SQL, [slot]);
      await client.query(RELAY_UNLOCK_SQL);
      await client.query('reset lock_timeout');
      client.release();
    } catch (error) {
      client.release(true);
      throw error;
    }
  });
}

async function logRegistryExists(client: Pool | PoolClient): Promise<boolean> {
  return (await client.query<{ exists: boolean }>(LOG_REGISTRY_EXISTS_SQL)).rows[0]?.exists === true;
}

async function anyLogTable(client: Pool | PoolClient): Promise<boolean> {
  if (!(await logRegistryExists(client))) return false;
  return (await client.query<{ any: boolean }>(ANY_LOG_TABLE_SQL)).rows[0]?.any === true;
}

/**
 * Takes the database's relay over and holds it on `client` (its session lock) until `releaseLogRelay` or the session
 * ends: the leader's sessions are ended, and no process relays meanwhile — changes wait in the WAL, as they would with
 * every extractor stopped. For maintenance and for measuring a catch-up that includes reading the log.
 */
export async function holdLogRelay(client: ClientBase, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await client.query<{ locked: boolean }>(TRY_RELAY_LOCK_SQL)).rows[0]?.locked === true) return;
    if (Date.now() >= deadline) throw new Error(`the relay lock was not free within ${timeoutMs} ms`);
    await client.query(END_RELAY_SESSIONS_SQL);
    await sleep(50);
  }
}

export async function releaseLogRelay(client: ClientBase): Promise<void> {
  await client.query(RELAY_UNLOCK_SQL);
}

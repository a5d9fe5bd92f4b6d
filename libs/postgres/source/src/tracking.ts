import { tableKey, type TableDefinition, type TableRef } from '@svc/contracts';
import type { Pool, PoolClient } from 'pg';
import { changeTableKeyColumns, primaryKeyColumns, tableExists } from './catalog';
import { PrimaryKeyRequiredError, StaleDefinitionError, withPoolConnections } from '@svc/engines';
import { RESERVED_KEY_NAMES, qualifiedName, trackingNames, type TrackingNames } from './identifiers';
import { inTransaction } from '@svc/postgres/common';
import { dropUnusedSlot, ensureSlot, slotName } from './log/log-relay';
import { CREATE_PUBLICATION_SQL, LOG_CAPTURE_READINESS_SQL, PUBLICATION, PUBLISHED_SQL, TABLE_LOG_CAPTURABLE_SQL } from './log/log-sql';
import {
  CHANGE_SCHEMA_LOCK_SQL,
  CHANGE_SCHEMA_SETUP_SQL,
  DROP_EMPTY_CHANGE_SCHEMA_SQL,
  REGISTER_TABLE_SQL,
  REGISTRY_EXISTS_SQL,
  UNREGISTER_TABLE_SQL,
  captureFunctionSql,
  DROP_CAPTURE_TRIGGERS_SQL,
  FORGET_CAPTURE_FAILURES_SQL,
  PARTITIONS_SQL,
  captureFunctionSignature,
  captureTriggersSql,
  createChangeTableSql,
  dropCaptureFunctionSql,
  dropChangeTableSql,
  lockTableSql,
  lockTimeoutSql,
  type KeyColumn,
} from './tracking-sql';

/**
 * Installs change capture for the table, idempotently. It holds the table in SHARE ROW EXCLUSIVE mode
 * while it works, so writers in flight finish first and every write after it returns is captured; when
 * they do not finish within `lockTimeoutMs` it fails (lock_timeout) and may be retried. The
 * capture is built from the primary key the catalog has under that lock, which must be the definition's.
 * A change table whose key no longer matches is rebuilt, and tracking restarts (its minimum valid version
 * moves to now), since the records it held are gone.
 */
export async function enableTracking(pool: Pool, definition: TableDefinition, lockTimeoutMs: number): Promise<void> {
  const { table } = definition;
  if (definition.primaryKey.length === 0) throw new PrimaryKeyRequiredError(table);
  // The slot exists before the table is published and registered: every write after that is in it.
  const capture = (await logCaptureAvailable(pool, table)) && (await prepareSlot(pool, lockTimeoutMs)) ? 'log' : 'trigger';
  await againAfterLostCreationRace(() => installCapture(pool, definition, capture, lockTimeoutMs));
  // A table moved from the log to triggers may have been the last one the slot served.
  if (capture === 'trigger') await dropUnusedSlot(pool, lockTimeoutMs);
}

/** SQLSTATEs of a CREATE … IF NOT EXISTS that lost to a concurrent one (PostgreSQL checks, then inserts the catalog row). */
const CREATION_RACE_CODES = new Set(['23505', '42710', '42P06', '42P07']);
const CREATION_RACE_ATTEMPTS = 3;

/**
 * Runs the setup again when it lost a creation race to another process setting up the same database (the schema, its
 * tables or the publication made meanwhile): with six processes tracking the first tables of a database at once, the
 * setup failed on pg_namespace's and pg_publication's unique indexes although its advisory lock serialises the
 * transactions (likely catalog caches from before the wait: an advisory lock, unlike a relation's, makes a backend read
 * no catalog invalidations). A new transaction sees what the other made. The service-kills test met it as a table left
 * in Error ("publication svc_ct already exists") by the two replications' first seeds.
 */
async function againAfterLostCreationRace(setup: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await setup();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= CREATION_RACE_ATTEMPTS || typeof code !== 'string' || !CREATION_RACE_CODES.has(code)) throw error;
    }
  }
}

async function installCapture(pool: Pool, definition: TableDefinition, capture: 'log' | 'trigger', lockTimeoutMs: number): Promise<void> {
  const { table } = definition;
  await inTransaction(pool, async (client) => {
    // In the same transaction as the capture: a disable that drops the schema with the last table cannot come between.
    for (const statement of CHANGE_SCHEMA_SETUP_SQL) await client.query(statement);
    if (!(await tableExists(client, table))) throw new StaleDefinitionError(table, 'the table does not exist');
    for (const statement of lockTableSql(table, lockTimeoutMs)) await client.query(statement);
    const keys = await currentKey(client, definition);
    const names = trackingNames(table);
    const existing = await changeTableKeyColumns(client, names.changeTable);
    if (!sameKeys(existing, keys)) {
      await client.query(dropChangeTableSql(names));
      await client.query(UNREGISTER_TABLE_SQL, [table.schema, table.name]);
    }
    for (const statement of createChangeTableSql(names, keys)) await client.query(statement);
    if (capture === 'log') {
      await dropTriggerCapture(client, names);
      await publish(client, table);
    } else {
      await unpublish(client, table);
      await installTriggerCapture(client, table, names, keys);
    }
    // Failures of an earlier capture are moot: the table is (re)seeded from a snapshot taken after this.
    await client.query(FORGET_CAPTURE_FAILURES_SQL, [table.schema, table.name]);
    await client.query(REGISTER_TABLE_SQL, [table.schema, table.name, names.changeTable, capture, qualifiedName(table)]);
  });
}

async function installTriggerCapture(client: PoolClient, table: TableRef, names: TrackingNames, keys: readonly KeyColumn[]): Promise<void> {
  await client.query(captureFunctionSql(table, names, keys));
  // The table's own triggers, and each partition's: statement triggers of a partitioned table do not fire for a
  // write addressed to one of its partitions (LOCK TABLE above took the partitions too).
  const partitions = (await client.query<{ partition: string }>(PARTITIONS_SQL, [qualifiedName(table)])).rows.map((row) => row.partition);
  for (const target of [qualifiedName(table), ...partitions]) for (const statement of captureTriggersSql(target, names)) await client.query(statement);
}

/** Removes the triggers and capture function, wherever they are (see DROP_CAPTURE_TRIGGERS_SQL); none is fine. */
async function dropTriggerCapture(client: PoolClient, names: TrackingNames): Promise<void> {
  const triggers = await client.query<{ statement: string }>(DROP_CAPTURE_TRIGGERS_SQL, [captureFunctionSignature(names)]);
  for (const { statement } of triggers.rows) await client.query(statement);
  await client.query(dropCaptureFunctionSql(names));
}

/** Adds the table to the publication (created with the first), unless it is in it. */
async function publish(client: PoolClient, table: TableRef): Promise<void> {
  await client.query(CREATE_PUBLICATION_SQL);
  const published = await client.query<{ published: boolean }>(PUBLISHED_SQL, [qualifiedName(table)]);
  if (published.rows[0]?.published !== true) await client.query(`alter publication ${PUBLICATION} add table ${qualifiedName(table)}`);
}

/** Takes the table out of the publication when it is in it (and the table still exists). */
async function unpublish(client: PoolClient, table: TableRef): Promise<void> {
  const published = await client.query<{ published: boolean }>(PUBLISHED_SQL, [qualifiedName(table)]);
  if (published.rows[0]?.published === true) await client.query(`alter publication ${PUBLICATION} drop table ${qualifiedName(table)}`);
}

/**
 * Whether this table's changes can be read from the log: wal_level logical, a login that may use a replication slot
 * and create (or own) the publication, and owns the table, whose replica identity gives a deleted row's key.
 */
async function logCaptureAvailable(pool: Pool, table: TableRef): Promise<boolean> {
  const [readiness] = (await pool.query<LogReadiness>(LOG_CAPTURE_READINESS_SQL)).rows;
  if (readiness?.wal_level !== 'logical' || readiness.max_wal_senders <= 0 || !readiness.can_replicate || !readiness.can_publish) return false;
  const [capturable] = (await pool.query<{ capturable: boolean | null }>(TABLE_LOG_CAPTURABLE_SQL, [qualifiedName(table)])).rows;
  return capturable?.capturable === true;
}

/**
 * Makes sure the database's slot exists (creating it waits for the transactions running then, at most
 * `lockTimeoutMs`); false when the server refuses one (no free slot, max_replication_slots; no right): triggers then.
 */
async function prepareSlot(pool: Pool, lockTimeoutMs: number): Promise<boolean> {
  return withPoolConnections(pool, 1, async () => {
    const client = await pool.connect();
    try {
      await ensureSlot(client, await slotName(client), lockTimeoutMs);
      client.release();
      return true;
    } catch (error) {
      client.release();
      if (SLOT_REFUSALS.has(String((error as { code?: unknown }).code))) return false;
      throw error;
    }
  });
}

/** configuration_limit_exceeded (max_replication_slots), insufficient_privilege, object_not_in_prerequisite_state (wal_level). */
const SLOT_REFUSALS: ReadonlySet<string> = new Set(['53400', '42501', '55000']);

interface LogReadiness {
  wal_level: string;
  max_wal_senders: number;
  can_replicate: boolean;
  can_publish: boolean;
}

async function currentKey(client: PoolClient, definition: TableDefinition): Promise<KeyColumn[]> {
  const { table } = definition;
  const keys = await primaryKeyColumns(client, table);
  const names = keys.map((key) => key.name);
  if (names.join('\u0000') !== definition.primaryKey.join('\u0000')) {
    throw new StaleDefinitionError(table, `its primary key is (${names.join(', ')}), not (${definition.primaryKey.join(', ')})`);
  }
  const reserved = names.filter((name) => RESERVED_KEY_NAMES.has(name));
  if (reserved.length > 0) {
    throw new Error(`${tableKey(table)} cannot be tracked: key column ${reserved.join(', ')} collides with a change-tracking column`);
  }
  return keys;
}

function sameKeys(existing: readonly KeyColumn[], wanted: readonly KeyColumn[]): boolean {
  return existing.length === wanted.length && existing.every((key, index) => key.name === wanted[index]?.name && key.type === wanted[index]?.type);
}

/**
 * Removes the capture triggers, capture function, change table and registry row in one transaction, and the schema
 * svc_ct itself with the last tracked table of the database.
 * Idempotent: a table never tracked, released before, or dropped meanwhile is fine, and one renamed since
 * it was tracked loses its triggers too (they are found through the function they call). Dropping a
 * trigger locks its table exclusively, waiting at most `lockTimeoutMs` for readers and writers in flight.
 */
export async function disableTracking(pool: Pool, table: TableRef, lockTimeoutMs: number): Promise<void> {
  const names = trackingNames(table);
  await inTransaction(pool, async (client) => {
    await client.query(CHANGE_SCHEMA_LOCK_SQL);
    const registry = await client.query<{ exists: boolean }>(REGISTRY_EXISTS_SQL);
    await client.query(lockTimeoutSql(lockTimeoutMs));
    await dropTriggerCapture(client, names);
    await unpublish(client, table);
    await client.query(dropChangeTableSql(names));
    if (registry.rows[0]?.exists === true) {
      await client.query(UNREGISTER_TABLE_SQL, [table.schema, table.name]);
      await client.query(DROP_EMPTY_CHANGE_SCHEMA_SQL);
    }
  });
  await dropUnusedSlot(pool, lockTimeoutMs);
}

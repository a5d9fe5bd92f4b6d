import type { RebuildThreshold } from '@svc/engines';
import type { ClientBase } from 'pg';
import { columnList, quoteIdent } from './quoting';

/** How long a rebuild waits for the table's readers before the batch is merged instead. */
export const REBUILD_LOCK_TIMEOUT_MS = 2_000;

/** The table a change batch rewrites, and the batch. */
export interface TableRebuild {
  /** The table, qualified and quoted. */
  qualifiedTable: string;
  keyColumns: readonly string[];
  /** The batch's rows (a temporary table, qualified and quoted), with the table's key columns under their names. */
  changesTable: string;
  /** `INSERT INTO <table> (…) SELECT … FROM <changes> AS <alias> WHERE <not a delete>`, without ORDER BY. */
  insertChangedRows: string;
  /** The alias insertChangedRows gives the changes table (its ORDER BY is added here). */
  changesAlias: string;
}

const SAVEPOINT = 'svc_rebuild';
/** The rows the batch leaves alone, for the transaction only. */
const KEEP_TABLE = 'svc_rebuild_keep';
/** lock_not_available, feature_not_supported (TRUNCATE of a table another's foreign key references). */
const MERGE_INSTEAD = new Set(['55P03', '0A000']);

/**
 * Applies a change batch already loaded into `changesTable` by rebuilding the table when the batch changes at least
 * `threshold` of it: the rows it leaves alone set aside, the table emptied (TRUNCATE: no dead rows, no index entries to
 * remove), its primary key dropped, the kept rows and the batch's new ones inserted, the key built again in one pass.
 * All inside the caller's transaction, so a reader sees the table before or after (TRUNCATE is not MVCC-safe for a
 * REPEATABLE READ snapshot taken before the commit: see docs/PIPELINE.md). True when it rebuilt; false, having
 * changed nothing, when the batch is too small, the table has triggers of its own (they would fire for every row put
 * back), its readers hold it past REBUILD_LOCK_TIMEOUT_MS, or another table's foreign key forbids TRUNCATE: the caller
 * then deletes and inserts.
 */
export async function rebuildWithChanges(client: ClientBase, rebuild: TableRebuild, changedRows: number, threshold: RebuildThreshold): Promise<boolean> {
  if (threshold.share <= 0 || changedRows < threshold.minRows) return false;
  // A user's row trigger would fire for every row put back, where the merge fires it for the changed ones only.
  if (await hasUserTriggers(client, rebuild.qualifiedTable)) return false;
  if (!(await holdsAtMost(client, rebuild.qualifiedTable, Math.floor(changedRows / threshold.share)))) return false;
  await client.query(`SAVEPOINT ${SAVEPOINT}`);
  try {
    await lockWithin(client, rebuild.qualifiedTable, REBUILD_LOCK_TIMEOUT_MS);
    await client.query(`CREATE TEMP TABLE ${KEEP_TABLE} ON COMMIT DROP AS
SELECT * FROM ${rebuild.qualifiedTable} AS t
WHERE NOT EXISTS (SELECT 1 FROM ${rebuild.changesTable} AS c WHERE ${keysMatch('c', 't', rebuild.keyColumns)})`);
    await client.query(`TRUNCATE ${rebuild.qualifiedTable}`);
  } catch (error) {
    if (!MERGE_INSTEAD.has(String((error as { code?: unknown }).code))) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    return false;
  }
  await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  const key = await dropPrimaryKey(client, rebuild.qualifiedTable);
  // With the key dropped the inserts only append; with it kept they go in key order (its index filled page by page).
  const order = (columns: string) => (key === null ? `\nORDER BY ${columns}` : '');
  await client.query(`INSERT INTO ${rebuild.qualifiedTable} SELECT * FROM pg_temp.${KEEP_TABLE}${order(columnList(rebuild.keyColumns))}`);
  // Its space back now, and its name free for the next table a group of change batches rebuilds in this transaction.
  await client.query(`DROP TABLE pg_temp.${KEEP_TABLE}`);
  await client.query(`${rebuild.insertChangedRows}${order(columnList(rebuild.keyColumns, rebuild.changesAlias))}`);
  if (key !== null) {
    await client.query(key.indexDefinition);
    await client.query(`ALTER TABLE ${rebuild.qualifiedTable} ADD CONSTRAINT ${quoteIdent(key.name)} PRIMARY KEY USING INDEX ${quoteIdent(key.index)}`);
  }
  return true;
}

/**
 * True when the table holds at most `limit` rows: counted, not estimated (statistics lag behind seeds and big batches),
 * and never past the limit, so the count costs at most the reading of a few times the batch's rows.
 */
async function holdsAtMost(client: ClientBase, qualifiedTable: string, limit: number): Promise<boolean> {
  const counted = await client.query<{ rows: string }>(`SELECT count(*) AS rows FROM (SELECT FROM ${qualifiedTable} LIMIT $1) AS bounded`, [limit + 1]);
  return Number(counted.rows[0]?.rows) <= limit;
}

async function hasUserTriggers(client: ClientBase, qualifiedTable: string): Promise<boolean> {
  const result = await client.query<{ triggered: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = to_regclass($1) AND NOT tgisinternal) AS triggered',
    [qualifiedTable],
  );
  return result.rows[0]?.triggered === true;
}

async function lockWithin(client: ClientBase, qualifiedTable: string, timeoutMs: number): Promise<void> {
  const previous = await client.query<{ value: string }>(`SELECT current_setting('lock_timeout') AS value`);
  await client.query(`SELECT set_config('lock_timeout', $1, true)`, [`${timeoutMs}ms`]);
  await client.query(`LOCK TABLE ${qualifiedTable} IN ACCESS EXCLUSIVE MODE`);
  await client.query(`SELECT set_config('lock_timeout', $1, true)`, [previous.rows[0]?.value ?? '0']);
}

/**
 * Drops the table's primary key, to be made again after the inserts: its index as pg_get_indexdef writes it (method,
 * INCLUDE and WITH options as they were), then the constraint on that index. Null, and the key kept, when the table's
 * replica identity is not the default (the index named as replica identity must stay), the key is deferrable, a foreign
 * key (the table's own) references it, another object depends on it, or the table has no primary key.
 */
async function dropPrimaryKey(client: ClientBase, qualifiedTable: string): Promise<DroppedKey | null> {
  const result = await client.query<{ name: string; index: string; index_definition: string }>(
    `SELECT k.conname AS name, i.relname AS index, pg_catalog.pg_get_indexdef(k.conindid) AS index_definition
FROM pg_catalog.pg_constraint AS k
JOIN pg_catalog.pg_class AS c ON c.oid = k.conrelid
JOIN pg_catalog.pg_class AS i ON i.oid = k.conindid
WHERE k.conrelid = to_regclass($1) AND k.contype = 'p' AND NOT k.condeferrable AND c.relreplident = 'd'
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint AS f WHERE f.contype = 'f' AND f.conindid = k.conindid)`,
    [qualifiedTable],
  );
  const key = result.rows[0];
  if (key === undefined) return null;
  await client.query(`SAVEPOINT ${SAVEPOINT}`);
  try {
    await client.query(`ALTER TABLE ${qualifiedTable} DROP CONSTRAINT ${quoteIdent(key.name)}`);
  } catch (error) {
    // dependent_objects_still_exist: e.g. a view grouping by the key relies on it (functional dependency).
    if ((error as { code?: unknown }).code !== '2BP01') throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
    return null;
  }
  await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
  return { name: key.name, index: key.index, indexDefinition: key.index_definition };
}

interface DroppedKey {
  name: string;
  index: string;
  indexDefinition: string;
}

function keysMatch(left: string, right: string, keys: readonly string[]): string {
  return keys.map((key) => `${left}.${quoteIdent(key)} = ${right}.${quoteIdent(key)}`).join(' AND ');
}

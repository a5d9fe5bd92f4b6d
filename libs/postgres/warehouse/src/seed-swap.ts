import type { ClientBase } from 'pg';
import { quoteIdent } from './identifiers';
import { targetIsEmptySql } from './merge-sql';
import { columnList } from './sql-fragments';
import { SystemColumns, type TableLayout } from './table-layout';

const UPDATE_TIMESTAMP = quoteIdent(SystemColumns.updateTimestamp);

/** How long the final part waits for readers of the empty target to let go before it merges instead. */
export const SWAP_LOCK_TIMEOUT_MS = 2_000;
const SWAP_SAVEPOINT = 'svc_sys_swap';
const LOCK_NOT_AVAILABLE = '55P03';

/** How the shadow becomes the target. */
export interface ShadowSwap {
  /** The target has `svc_sys_update_timestamp`: the swapped table gets it too. */
  updateTimestamp: boolean;
}

/**
 * The final part of a first seed (Type1 or keyless, target found empty): makes the shadow the target and
 * returns true, or changes nothing and returns false. Both tables are locked first, waiting at most
 * SWAP_LOCK_TIMEOUT_MS for readers of the empty target (a session idle in a transaction that read it must
 * not hold the seed, and every reader queued behind it, for the statement timeout); then the swap goes
 * ahead only when nothing but the service's own definition hangs on the target (see SWAPPABLE_SQL).
 * Otherwise the locks are given back and the caller merges, leaving the user's objects as they are.
 */
export async function swapShadowIntoTarget(client: ClientBase, layout: TableLayout, now: string): Promise<boolean> {
  if (layout.history === 'type2') return false;
  await client.query(`SAVEPOINT ${SWAP_SAVEPOINT}`);
  const swap = await lockAndPlan(client, layout).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw error;
    return null;
  });
  if (swap === null) {
    await client.query(`ROLLBACK TO SAVEPOINT ${SWAP_SAVEPOINT}`);
    return false;
  }
  await client.query(`RELEASE SAVEPOINT ${SWAP_SAVEPOINT}`);
  for (const statement of swapShadowSql(layout, swap, now)) await client.query(statement);
  return true;
}

async function lockAndPlan(client: ClientBase, layout: TableLayout): Promise<ShadowSwap | null> {
  const previous = await client.query<{ value: string }>(`SELECT current_setting('lock_timeout') AS value`);
  await client.query(`SELECT set_config('lock_timeout', $1, true)`, [`${SWAP_LOCK_TIMEOUT_MS}ms`]);
  await client.query(`LOCK TABLE ${layout.qualifiedTarget}, ${layout.qualifiedShadow} IN ACCESS EXCLUSIVE MODE`);
  await client.query(`SELECT set_config('lock_timeout', $1, true)`, [previous.rows[0]?.value ?? '0']);
  // Found empty before the lock; only the loader writes to it, but a user's insert meanwhile must not be lost.
  if ((await client.query<{ empty: boolean }>(targetIsEmptySql(layout))).rows[0]?.empty !== true) return null;
  const result = await client.query<{ swappable: boolean; update_timestamp: boolean }>(SWAPPABLE_SQL, [
    layout.qualifiedTarget,
    layout.qualifiedShadow,
    SystemColumns.updateTimestamp,
    layout.keyColumns,
  ]);
  const row = result.rows[0];
  if (row?.swappable !== true) return null;
  if (layout.addUpdateTimestamp && !row.update_timestamp) return null;
  return { updateTimestamp: row.update_timestamp };
}

/**
 * The shadow, holding every row of the seed, becomes the (empty) target without copying a row: one scan
 * checks the keys (Type1), the target is dropped, the shadow renamed, the update timestamp added as a
 * column whose value for every row is the load's stamp `now` (stored once in the catalog, as the
 * merge path would have written it row by row), and the primary key built in one pass; no shadow is left (the next
 * seed makes one). Nothing rewrites the table, and the target has no dropped column.
 */
export function swapShadowSql(layout: TableLayout, swap: ShadowSwap, now: string): string[] {
  // The shadow's rows are not stamped with their seed, so nothing is checked (or dropped) per row here:
  // it holds the current seed's rows only, because part 0 emptied it and recorded the seed, and this final
  // part was loaded only after its seed was found still recorded in svc_sys_table_seeds, in this
  // transaction and under the table lock (WarehouseProtocol's loadSeedPart). A shadow with a dropped column or the stamp
  // column of earlier versions is not swapped (SWAPPABLE_SQL): it would carry a dead column into the target.
  const verify = layout.keyColumns.map((key) => `ALTER COLUMN ${quoteIdent(key)} SET NOT NULL`);
  const reshape = [
    ...(swap.updateTimestamp ? [`ADD COLUMN ${UPDATE_TIMESTAMP} timestamptz DEFAULT ${now}`] : []),
    ...(layout.history === 'type1' ? [`ADD PRIMARY KEY (${columnList(layout.keyColumns)})`] : []),
  ];
  return [
    ...alterTable(layout.qualifiedShadow, verify),
    `DROP TABLE ${layout.qualifiedTarget}`,
    `ALTER TABLE ${layout.qualifiedShadow} RENAME TO ${quoteIdent(layout.target)}`,
    ...alterTable(layout.qualifiedTarget, reshape),
    // Rows the merge path inserts later get the update timestamp it writes; the target has no default.
    ...(swap.updateTimestamp ? [`ALTER TABLE ${layout.qualifiedTarget} ALTER COLUMN ${UPDATE_TIMESTAMP} DROP DEFAULT`] : []),
  ];
}

/** One ALTER TABLE of all `actions`; none when there are none. */
function alterTable(qualifiedTable: string, actions: string[]): string[] {
  return actions.length === 0 ? [] : [`ALTER TABLE ${qualifiedTable}\n  ${actions.join(',\n  ')}`];
}

/**
 * $1 target, $2 shadow (qualified, quoted), $3 the update timestamp column, $4 the key columns. The only
 * objects allowed to depend on either table: its row type (and that type's array type), its TOAST table
 * and the target's primary key. Column signatures compare name, type, collation and NOT NULL (key columns
 * only); every shadow column counts, so a shadow that still has the seed stamp column of earlier versions
 * is not swapped, nor is one with a dropped column (the target would keep its bytes in every row).
 */
const SWAPPABLE_SQL = `WITH target AS (
  SELECT c.* FROM pg_catalog.pg_class AS c WHERE c.oid = to_regclass($1)
), shadow AS (
  SELECT c.* FROM pg_catalog.pg_class AS c WHERE c.oid = to_regclass($2)
), target_columns AS (
  SELECT coalesce(array_agg(format('%I %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attcollation, a.attnotnull) ORDER BY a.attname), '{}') AS signature
  FROM pg_catalog.pg_attribute AS a, target AS t
  WHERE a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attname <> $3
), shadow_columns AS (
  SELECT coalesce(array_agg(format('%I %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attcollation, a.attname = ANY ($4::text[])) ORDER BY a.attname), '{}') AS signature
  FROM pg_catalog.pg_attribute AS a, shadow AS s
  WHERE a.attrelid = s.oid AND a.attnum > 0 AND NOT a.attisdropped
)
SELECT
  t.relkind = 'r' AND s.relkind = 'r'
  AND t.relpersistence = s.relpersistence
  AND t.relowner = s.relowner
  AND t.relacl IS NOT DISTINCT FROM s.relacl
  AND t.reloptions IS NULL
  AND NOT t.relrowsecurity
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits AS i WHERE t.oid IN (i.inhrelid, i.inhparent) OR s.oid IN (i.inhrelid, i.inhparent))
  AND NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_depend AS d
    WHERE d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid IN (t.oid, s.oid)
      AND NOT (d.classid = 'pg_catalog.pg_type'::regclass AND d.objid IN (t.reltype, s.reltype))
      AND NOT (d.classid = 'pg_catalog.pg_class'::regclass AND d.objid IN (t.reltoastrelid, s.reltoastrelid))
      AND NOT (d.classid = 'pg_catalog.pg_constraint'::regclass
        AND d.objid IN (SELECT k.oid FROM pg_catalog.pg_constraint AS k WHERE k.conrelid = t.oid AND k.contype = 'p'))
  )
  AND NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_depend AS d
    WHERE d.refclassid = 'pg_catalog.pg_type'::regclass
      AND d.refobjid IN (SELECT y.oid FROM pg_catalog.pg_type AS y WHERE y.oid IN (t.reltype, s.reltype) OR y.typelem IN (t.reltype, s.reltype))
      AND NOT (d.classid = 'pg_catalog.pg_type'::regclass AND d.deptype = 'i')
  )
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_description AS x WHERE x.classoid = 'pg_catalog.pg_class'::regclass AND x.objoid IN (t.oid, s.oid))
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = t.oid AND a.attacl IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = s.oid AND a.attisdropped)
  AND NOT EXISTS (
    SELECT 1 FROM pg_catalog.pg_attribute AS a
    WHERE a.attrelid = t.oid AND a.attname = $3 AND NOT a.attisdropped AND (a.atttypid <> 'timestamptz'::regtype OR a.attnotnull)
  )
  AND (SELECT signature FROM target_columns) = (SELECT signature FROM shadow_columns) AS swappable,
  EXISTS (SELECT 1 FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = t.oid AND a.attname = $3 AND NOT a.attisdropped) AS update_timestamp
FROM target AS t, shadow AS s`;

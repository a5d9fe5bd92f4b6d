import type { TableDefinition } from '@svc/contracts';
import { READ_ONLY_SNAPSHOT_SQL } from '@svc/postgres/common';
import { NET_INSERTED_COLUMN, inChangeSchema, qualifiedName, quoteIdent, trackingNames } from './identifiers';
import { xid8Literal } from './versions';

/** The snapshot every read runs in, with the settings under which COPY writes the row format later stages parse. */
export const READ_TRANSACTION_SQL = READ_ONLY_SNAPSHOT_SQL;

/**
 * The version a snapshot (or a change read) stands at: every transaction below it has ended, so the
 * snapshot sees exactly those of them that committed. A transaction still running has an xid at or above it
 * and is read by a later cycle, however late it commits.
 */
export const SNAPSHOT_VERSION_SQL = 'select pg_snapshot_xmin(pg_current_snapshot())::text as version';

/**
 * Taken first in a change read: writers (through the capture trigger) and disableTracking lock the table
 * before its change table, so a read that locked the change table first could deadlock with them.
 */
export function lockTrackedTableSql(definition: TableDefinition): string {
  return `lock table ${qualifiedName(definition.table)} in access share mode`;
}

/** Every row of the table (or those `where` selects: a seed chunk's key range), columns in definition order, as CSV. */
export function snapshotCopySql(definition: TableDefinition, where: string | null = null): string {
  const columns = definition.columns.map((column) => quoteIdent(column.name)).join(', ');
  return `copy (select ${columns} from ${qualifiedName(definition.table)}${where === null ? '' : ` where ${where}`}) to stdout (format csv)`;
}

/**
 * Where a change read ends: $1 from, $2 the snapshot's version, $3 the record limit. When more than $3
 * records lie in [$1, $2), the read stops before the transaction whose records cross the limit (the
 * ($3+1)-th record's); when that is the very first transaction, the read takes it alone and ends at the
 * next transaction with records. A transaction is never split. Reads at most $3 + 1 index entries.
 */
export function changeWindowEndSql(definition: TableDefinition): string {
  const changeTable = inChangeSchema(trackingNames(definition.table).changeTable);
  return `with overflow as (
  select svc_xid from ${changeTable}
  where svc_xid >= $1::xid8 and svc_xid < $2::xid8
  order by svc_xid offset $3 limit 1
),
first_transaction as (
  select svc_xid from ${changeTable}
  where svc_xid >= $1::xid8 and svc_xid < $2::xid8
  order by svc_xid limit 1
),
after_overflow as (
  select svc_xid from ${changeTable}
  where svc_xid > (select svc_xid from overflow) and svc_xid < $2::xid8
  order by svc_xid limit 1
)
select (case
  when not exists (select from overflow) then $2::xid8
  when (select svc_xid from overflow) > (select svc_xid from first_transaction) then (select svc_xid from overflow)
  else coalesce((select svc_xid from after_overflow), $2::xid8)
end)::text as to_version`;
}

/**
 * The net change per key in [from, to), like SQL Server's CHANGETABLE(CHANGES …): each changed key once,
 * joined to its current row in the same snapshot. A key whose row is gone reads as 'D' with only the key
 * filled in; otherwise 'I' when the key's first change in the window inserted it, else 'U', with the row's
 * current values. Deciding 'D' by the row rather than by the last record keeps the result equal to the
 * snapshot even when transactions touching one key have ids out of commit order. The first record is found
 * by svc_seq: writes to one key are serialised by its row lock, so their sequence order is their real order.
 *
 * In key order: the rows are then looked up in the table's key order whichever join the planner picks — right
 * after a big transaction the change table's statistics still describe it as small, and a nested loop over
 * the keys in hash order read 2M rows at random (18 s instead of ~3 s) — and the stager and loader insert
 * them in key order too.
 */
export function netChangesCopySql(definition: TableDefinition, from: bigint, to: bigint): string {
  const changeTable = inChangeSchema(trackingNames(definition.table).changeTable);
  const keys = definition.primaryKey.map(quoteIdent);
  const firstKey = keys[0] ?? '';
  const isKey = new Set(definition.primaryKey);
  const columns = definition.columns.map((column) => `${isKey.has(column.name) ? 'changed' : 'live'}.${quoteIdent(column.name)}`);
  const sameKey = keys.map((key) => `live.${key} = changed.${key}`).join(' and ');
  return `copy (
  with changed_keys as (
    select ${keys.join(', ')},
      coalesce(min(svc_seq) filter (where svc_op = 'I') = min(svc_seq), false) as ${NET_INSERTED_COLUMN}
    from ${changeTable}
    where svc_xid >= ${xid8Literal(from)} and svc_xid < ${xid8Literal(to)}
    group by ${keys.join(', ')}
    order by ${keys.join(', ')}
  )
  select
    case when live.${firstKey} is null then 'D' when changed.${NET_INSERTED_COLUMN} then 'I' else 'U' end,
    ${columns.join(',\n    ')}
  from changed_keys changed
  left join ${qualifiedName(definition.table)} live on ${sameKey}
  order by ${keys.map((key) => `changed.${key}`).join(', ')}
) to stdout (format csv)`;
}

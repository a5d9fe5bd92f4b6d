import type { TableRef } from '@svc/contracts';
import { LOG_REGISTRY_SETUP_SQL } from './log/log-sql';
import { CAPTURE_FAILURES, CHANGE_SCHEMA, TRACKED_TABLES, inChangeSchema, qualifiedName, quoteIdent, type TrackingNames } from './identifiers';

/** A key column of a tracked table with its type as the source writes it (format_type). */
export interface KeyColumn {
  name: string;
  type: string;
}

/**
 * The lock every change of the change-tracking schema's existence takes: its creation (CHANGE_SCHEMA_SETUP_SQL, in the
 * transaction that then installs a table's capture) and its removal with the last tracked table (disableTracking).
 */
export const CHANGE_SCHEMA_LOCK_SQL = `select pg_advisory_xact_lock(hashtext('${CHANGE_SCHEMA} setup'))`;

/**
 * Creates the change-tracking schema and registry once per database. The advisory lock serialises
 * concurrent first-time setups, which `if not exists` alone does not make safe.
 */
export const CHANGE_SCHEMA_SETUP_SQL: readonly string[] = [
  CHANGE_SCHEMA_LOCK_SQL,
  `create schema if not exists ${CHANGE_SCHEMA}`,
  // Capture runs as whoever writes to a tracked table, so every role must reach the change tables.
  `grant usage on schema ${CHANGE_SCHEMA} to public`,
  `create table if not exists ${TRACKED_TABLES} (
  schema text not null,
  name text not null,
  change_table text not null,
  -- Changes below this version are gone (purged, or before tracking began): a watermark below it must reseed.
  min_valid_version xid8 not null,
  enabled_at timestamptz not null default now(),
  primary key (schema, name)
)`,
  // Written by a capture function that failed, in the writer's transaction (so only when the write commits).
  `create table if not exists ${CAPTURE_FAILURES} (
  schema text not null,
  name text not null,
  failed_xid xid8 not null default pg_current_xact_id(),
  failed_at timestamptz not null default now(),
  reason text not null
)`,
  `create index if not exists capture_failures_table on ${CAPTURE_FAILURES} (schema, name, failed_xid)`,
  `grant insert on ${CAPTURE_FAILURES} to public`,
  ...LOG_REGISTRY_SETUP_SQL,
];

/**
 * Waits for writers in flight and holds off new ones until capture is in place (conflicts with ROW
 * EXCLUSIVE). While it waits, later writers queue behind it, so the wait is bounded by lock_timeout.
 */
export function lockTableSql(table: TableRef, lockTimeoutMs: number): string[] {
  return [lockTimeoutSql(lockTimeoutMs), `lock table ${qualifiedName(table)} in share row exclusive mode`];
}

/** How long the transaction's statements wait for a table lock before they fail (lock_timeout, SQLSTATE 55P03). */
export function lockTimeoutSql(lockTimeoutMs: number): string {
  return `set local lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`;
}

export function createChangeTableSql(names: TrackingNames, keys: readonly KeyColumn[]): string[] {
  const changeTable = inChangeSchema(names.changeTable);
  const keyColumns = keys.map((key) => `  ${quoteIdent(key.name)} ${key.type} not null,`);
  return [
    [
      `create table if not exists ${changeTable} (`,
      ...keyColumns,
      '  svc_op char(1) not null,',
      '  svc_xid xid8 not null default pg_current_xact_id(),',
      '  svc_seq bigint generated always as identity primary key,',
      '  svc_changed_at timestamptz not null default now()',
      ')',
    ].join('\n'),
    `create index if not exists ${quoteIdent(names.xidIndex)} on ${changeTable} (svc_xid)`,
    `grant insert on ${changeTable} to public`,
  ];
}

export function dropChangeTableSql(names: TrackingNames): string {
  return `drop table if exists ${inChangeSchema(names.changeTable)}`;
}

/**
 * One plpgsql function per table serves its four statement-level triggers (on the table and on each of its
 * partitions): each statement costs one INSERT … SELECT from its transition tables, whatever the number of rows. An
 * UPDATE records 'U' for a key that was there before the statement, 'I' for a key that was not, and 'D' for a key that
 * is gone (primary-key updates). TRUNCATE has no transition table; a BEFORE trigger records every key of the table it
 * fires on (the table or one partition) as 'D'.
 *
 * Capture never fails the user's write: any error inside it (a key column renamed or dropped, the change table
 * dropped by hand) is caught, recorded in CAPTURE_FAILURES in the writer's transaction, and the write goes on; the
 * next change read finds the record and reseeds the table (CaptureFailedError). The EXCEPTION block costs one
 * subtransaction per statement, not per row. A cancel (QUERY_CANCELED) is not caught: it still cancels the write.
 */
export function captureFunctionSql(table: TableRef, names: TrackingNames, keys: readonly KeyColumn[]): string {
  const changeTable = inChangeSchema(names.changeTable);
  const keyNames = keys.map((key) => quoteIdent(key.name));
  const firstKey = keyNames[0] ?? '';
  const columns = `(${keyNames.join(', ')}, svc_op)`;
  const keysOf = (alias: string) => keyNames.map((key) => `${alias}.${key}`).join(', ');
  const sameKey = (left: string, right: string) => keyNames.map((key) => `${left}.${key} = ${right}.${key}`).join(' and ');
  const failureValues = `${literal(table.schema)}, ${literal(table.name)}`;
  const body = `
begin
  begin
  if tg_op = 'INSERT' then
    insert into ${changeTable} ${columns}
    select ${keysOf('new_row')}, 'I' from svc_new_rows new_row;
  elsif tg_op = 'UPDATE' then
    insert into ${changeTable} ${columns}
    select ${keysOf('new_row')}, case when old_row.${firstKey} is null then 'I' else 'U' end
    from svc_new_rows new_row
    left join svc_old_rows old_row on ${sameKey('old_row', 'new_row')};
    insert into ${changeTable} ${columns}
    select ${keysOf('old_row')}, 'D'
    from svc_old_rows old_row
    where not exists (select from svc_new_rows new_row where ${sameKey('new_row', 'old_row')});
  elsif tg_op = 'DELETE' then
    insert into ${changeTable} ${columns}
    select ${keysOf('old_row')}, 'D' from svc_old_rows old_row;
  elsif tg_op = 'TRUNCATE' then
    execute format('insert into ${changeTable.replace(/%/g, '%%').replace(/'/g, "''")} ${columns} select ${keysOf('old_row').replace(/%/g, '%%').replace(/'/g, "''")}, ''D'' from %I.%I old_row', tg_table_schema, tg_table_name);
  end if;
  exception when others then
    begin
      insert into ${CAPTURE_FAILURES} (schema, name, reason) values (${failureValues}, left(format('%s (SQLSTATE %s)', sqlerrm, sqlstate), 300));
    exception when others then
      null;
    end;
  end;
  return null;
end
`;
  return `create or replace function ${inChangeSchema(names.captureFunction)}() returns trigger\nlanguage plpgsql as ${dollarQuoted(body, 'capture')}`;
}

export const CAPTURE_TRIGGERS = ['svc_ct_insert', 'svc_ct_update', 'svc_ct_delete', 'svc_ct_truncate'] as const;
type CaptureTrigger = (typeof CAPTURE_TRIGGERS)[number];

/**
 * Drops and creates the triggers on the table or one of its partitions (`target`, qualified; CREATE OR REPLACE TRIGGER
 * needs PostgreSQL 14; xid8 needs 13). They fire ALWAYS: also under session_replication_role = replica, which
 * pg_restore, logical replication subscribers and many loading tools set, and under which ORIGIN triggers stay silent.
 */
export function captureTriggersSql(target: string, names: TrackingNames): string[] {
  const capture = captureFunctionSignature(names);
  return CAPTURE_TRIGGERS.flatMap((trigger) => [
    `drop trigger if exists ${trigger} on ${target}`,
    `create trigger ${trigger} ${triggerTiming(trigger)} on ${target}\n${transitionTables(trigger)}for each statement execute function ${capture}`,
    `alter table ${target} enable always trigger ${trigger}`,
  ]);
}

/** $1 the table (qualified): every partition under it, at any depth, qualified; none for a table without partitions. */
export const PARTITIONS_SQL = `select format('%I.%I', n.nspname, c.relname) as partition
from pg_partition_tree(to_regclass($1)) p
join pg_class c on c.oid = p.relid
join pg_namespace n on n.oid = c.relnamespace
where p.relid <> to_regclass($1)
order by p.level, c.relname`;

function triggerTiming(trigger: CaptureTrigger): string {
  switch (trigger) {
    case 'svc_ct_insert':
      return 'after insert';
    case 'svc_ct_update':
      return 'after update';
    case 'svc_ct_delete':
      return 'after delete';
    case 'svc_ct_truncate':
      return 'before truncate';
  }
}

function transitionTables(trigger: CaptureTrigger): string {
  switch (trigger) {
    case 'svc_ct_insert':
      return 'referencing new table as svc_new_rows\n';
    case 'svc_ct_update':
      return 'referencing old table as svc_old_rows new table as svc_new_rows\n';
    case 'svc_ct_delete':
      return 'referencing old table as svc_old_rows\n';
    case 'svc_ct_truncate':
      return '';
  }
}

/**
 * $1 the capture function (`svc_ct."<name>"()`, see captureFunctionSignature): a DROP TRIGGER statement for
 * every trigger that calls it, on whatever table holds it now, so a table renamed or moved since it was
 * tracked is released too. No rows when the function (or schema svc_ct) does not exist.
 */
export const DROP_CAPTURE_TRIGGERS_SQL = `select format('drop trigger %I on %I.%I', t.tgname, n.nspname, c.relname) as statement
from pg_trigger t
join pg_class c on c.oid = t.tgrelid
join pg_namespace n on n.oid = c.relnamespace
where t.tgfoid = to_regprocedure($1)
order by n.nspname, c.relname, t.tgname`;

/** The capture function's signature as to_regprocedure reads it. */
export function captureFunctionSignature(names: TrackingNames): string {
  return `${inChangeSchema(names.captureFunction)}()`;
}

/** Drops the capture function; its triggers must be gone (or their table dropped). */
export function dropCaptureFunctionSql(names: TrackingNames): string {
  return `drop function if exists ${captureFunctionSignature(names)}`;
}

/**
 * $1 schema, $2 name, $3 change table, $4 capture ('trigger' or 'log'), $5 the table (qualified). Tracking starts at
 * the current horizon: nothing before it was captured. Enabling a tracked table again keeps its minimum valid version
 * (its change records go on) and records how it is captured now.
 */
export const REGISTER_TABLE_SQL = `insert into ${TRACKED_TABLES} (schema, name, change_table, min_valid_version, capture, relid)
values ($1, $2, $3, pg_snapshot_xmin(pg_current_snapshot()), $4, case when $4 = 'log' then to_regclass($5)::oid end)
on conflict (schema, name) do update set capture = excluded.capture, relid = excluded.relid`;

/** $1 schema, $2 name */
export const UNREGISTER_TABLE_SQL = `delete from ${TRACKED_TABLES} where schema = $1 and name = $2`;

/** $1 schema, $2 name: the registry row as JSON (a registry made before log capture lacks its columns). */
export const TRACKED_TABLE_SQL = `select to_jsonb(t) as row from ${TRACKED_TABLES} t where schema = $1 and name = $2`;

/** $1 schema, $2 name */
export const MIN_VALID_VERSION_SQL = `select min_valid_version::text as version from ${TRACKED_TABLES} where schema = $1 and name = $2`;

/**
 * $1 the change table (`svc_ct."<name>"`), $2 the tracked table (qualified), $3 the capture function's
 * signature: whether the change table exists and every capture trigger calls the function. The registry
 * row alone does not say so: a source table dropped and created again lost its triggers, and a change
 * table dropped by hand would make every write to the table fail.
 */
export const CAPTURE_INTACT_SQL = `select to_regclass($1) is not null
  and not exists (
    select from (select to_regclass($2) as relid union select p.relid from pg_partition_tree(to_regclass($2)) p) part
    where (select count(distinct t.tgname) from pg_trigger t
           where t.tgrelid = part.relid and t.tgfoid = to_regprocedure($3) and t.tgenabled = 'A'
             and t.tgname = any ($4::text[])) <> cardinality($4::text[])) as intact`;

/**
 * $1 schema, $2 name, $3 the watermark: the latest capture failure of the table's writes at or after it (visible once
 * the failed write committed); no row when capture has not failed since.
 */
export const CAPTURE_FAILED_SQL = `select reason from ${CAPTURE_FAILURES}
where schema = $1 and name = $2 and failed_xid >= $3::xid8
order by failed_xid desc limit 1`;

/** $1 schema, $2 name: forgets the table's capture failures that a new start of tracking has made moot. */
export const FORGET_CAPTURE_FAILURES_SQL = `delete from ${CAPTURE_FAILURES} where schema = $1 and name = $2`;

/** Whether the capture failure table exists (tracking installed before it did has none until it is enabled again). */
export const CAPTURE_FAILURES_EXISTS_SQL = `select to_regclass('${CAPTURE_FAILURES}') is not null as exists`;

/** Whether the registry, the capture failure table and log capture's registry columns exist, in one round trip (the change probe's first question). */
export const TRACKING_OBJECTS_SQL = `select to_regclass('${TRACKED_TABLES}') is not null as registry, to_regclass('${CAPTURE_FAILURES}') is not null as failures,
  exists (select from pg_attribute where attrelid = to_regclass('${TRACKED_TABLES}') and attname = 'capture' and not attisdropped) as log`;

/**
 * Drops the change-tracking schema and the publication (named like it) when no table is tracked any more: what the
 * service created in the source goes with the last table it released (Delete leaves nothing behind; the slot is dropped
 * after the transaction, dropUnusedSlot). Run under CHANGE_SCHEMA_LOCK_SQL.
 */
export const DROP_EMPTY_CHANGE_SCHEMA_SQL = `do $drop$
begin
  if to_regclass('${TRACKED_TABLES}') is not null and not exists (select from ${TRACKED_TABLES}) then
    drop schema ${CHANGE_SCHEMA} cascade;
    drop publication if exists ${CHANGE_SCHEMA};
  end if;
end
$drop$`;

/** Whether the registry exists (before anything was tracked it does not). */
export const REGISTRY_EXISTS_SQL = `select to_regclass('${TRACKED_TABLES}') is not null as exists`;

/** A text literal. */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** `$tag$body$tag$` with a tag that does not occur in the body (identifiers in it are arbitrary text). */
function dollarQuoted(body: string, tag: string): string {
  let delimiter = `$${tag}$`;
  for (let n = 1; body.includes(delimiter); n += 1) delimiter = `$${tag}${n}$`;
  return `${delimiter}${body}${delimiter}`;
}

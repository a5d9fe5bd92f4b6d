import { CAPTURE_FAILURES, CHANGE_COLUMNS, CHANGE_SCHEMA, TRACKED_TABLES } from '../identifiers';

/**
 * Log capture's objects in a source database: one publication (per database, as publications are) and one logical
 * replication slot for every replication of the database, named after the database's oid since slot names are
 * shared by the whole server. One slot rather than one per replication: the change tables a slot fills are shared
 * by every replication that tracks the table, like the triggers were, and each slot holds WAL back on its own.
 */
export const PUBLICATION = CHANGE_SCHEMA;
export const LOG_POSITION = `${CHANGE_SCHEMA}.log_position`;

/** The lock every relay of the database's slot, and the slot's removal, takes (session level: it spans transactions). */
export const RELAY_LOCK_KEY_SQL = `hashtext('${CHANGE_SCHEMA} relay')`;
export const TRY_RELAY_LOCK_SQL = `select pg_try_advisory_lock(${RELAY_LOCK_KEY_SQL}) as locked`;
export const RELAY_LOCK_SQL = `select pg_advisory_lock(${RELAY_LOCK_KEY_SQL})`;
export const RELAY_UNLOCK_SQL = `select pg_advisory_unlock(${RELAY_LOCK_KEY_SQL})`;

/** The channel a process that needs a fresh horizon notifies; the database's relay leader listens on it. */
export const RELAY_CHANNEL = `${CHANGE_SCHEMA}_relay`;
export const REQUEST_RELAY_SQL = `select pg_notify('${CHANGE_SCHEMA}_relay', '')`;

export const SLOT_NAME_SQL = `select '${CHANGE_SCHEMA}_' || oid::text as slot from pg_database where datname = current_database()`;

/**
 * Whether this login can capture from the log here, and why not: wal_level must be logical and a walsender allowed
 * (max_wal_senders, the relay streams the slot through one); the login needs the
 * REPLICATION attribute (or superuser, or on Amazon RDS/Aurora membership of rds_replication) to use a slot, CREATE on
 * the database for the publication (unless it exists) and ownership of the tables it publishes (checked per table).
 */
export const LOG_CAPTURE_READINESS_SQL = `select current_setting('wal_level') as wal_level, current_setting('max_wal_senders')::int as max_wal_senders,
  (r.rolsuper or r.rolreplication
    or exists (select from pg_roles g where g.rolname = 'rds_replication' and pg_has_role(current_user, g.oid, 'member'))) as can_replicate,
  (has_database_privilege(current_database(), 'CREATE')
    or exists (select from pg_publication p where p.pubname = '${PUBLICATION}' and pg_has_role(current_user, p.pubowner, 'usage'))) as can_publish,
  current_user as login
from pg_roles r where r.rolname = current_user`;

/**
 * $1 the table (qualified): whether the log can capture it — the login owns it (or is superuser) and its replica
 * identity gives the primary key of a deleted row: DEFAULT with a primary key, or FULL. A table whose identity is
 * NOTHING or another index is captured by triggers: published, its UPDATEs and DELETEs would fail or lose the key.
 */
export const TABLE_LOG_CAPTURABLE_SQL = `select (pg_has_role(current_user, c.relowner, 'usage') or (select rolsuper from pg_roles where rolname = current_user))
  and (c.relreplident = 'f' or (c.relreplident = 'd' and exists (select from pg_index i where i.indrelid = c.oid and i.indisprimary))) as capturable
from pg_class c where c.oid = to_regclass($1)`;

export const SLOT_STATE_SQL = `select s.slot_name, s.wal_status, s.confirmed_flush_lsn::text as confirmed, s.active
from pg_replication_slots s where s.slot_name = $1`;

/** The WAL the database's slot keeps, in bytes: what a stopped or lagging service costs the source's disk. */
export const SLOT_WAL_HELD_SQL = `select pg_wal_lsn_diff(pg_current_wal_lsn(), s.restart_lsn)::text as bytes
from pg_replication_slots s
where s.slot_name = (select '${CHANGE_SCHEMA}_' || oid::text from pg_database where datname = current_database())`;

/** Whether the registry knows log capture (its capture column exists). */
export const LOG_REGISTRY_EXISTS_SQL = `select exists (select from pg_attribute
  where attrelid = to_regclass('${TRACKED_TABLES}') and attname = 'capture' and not attisdropped) as exists`;

/** Whether any table is captured from the log (run once LOG_REGISTRY_EXISTS_SQL said the column exists). */
export const ANY_LOG_TABLE_SQL = `select exists (select from ${TRACKED_TABLES} where capture = 'log') as any`;

export const CREATE_SLOT_SQL = `select pg_create_logical_replication_slot($1, 'pgoutput')`;
export const DROP_SLOT_SQL = `select pg_drop_replication_slot($1)`;

/** The publication with partitioned tables published as their root (PostgreSQL 13+), created once. */
export const CREATE_PUBLICATION_SQL = `do $publication$
begin
  if not exists (select from pg_publication where pubname = '${PUBLICATION}') then
    create publication ${PUBLICATION} with (publish = 'insert, update, delete, truncate', publish_via_partition_root = true);
  end if;
exception when duplicate_object or unique_violation then
  -- Made meanwhile by a setup running at the same time (two seeds starting at once: ensureSlot runs outside the
  -- setup lock): "if not exists" alone saw it missing in both.
  null;
end
$publication$`;

/** $1 the table (qualified): whether the publication holds it. */
export const PUBLISHED_SQL = `select exists (select from pg_publication_rel pr join pg_publication p on p.oid = pr.prpubid
  where p.pubname = '${PUBLICATION}' and pr.prrelid = to_regclass($1)) as published`;

/**
 * Log capture's columns of the registry and its relay position, added to a registry made before them (checked first:
 * ALTER TABLE locks the registry exclusively even when the column exists).
 */
export const LOG_REGISTRY_SETUP_SQL: readonly string[] = [
  `do $columns$
begin
  if not exists (select from pg_attribute where attrelid = '${TRACKED_TABLES}'::regclass and attname = 'capture' and not attisdropped) then
    -- How the table's changes are captured: 'trigger' or 'log'; relid is the relation the log names it by.
    alter table ${TRACKED_TABLES} add column capture text not null default 'trigger', add column relid oid;
  end if;
end
$columns$`,
  `create table if not exists ${LOG_POSITION} (
  slot text primary key,
  -- Every transaction below it has ended and its changes are in the change tables.
  relayed_horizon xid8 not null,
  relayed_lsn pg_lsn not null,
  relayed_at timestamptz not null default now()
)`,
];

/** The log-captured tables of the registry, by relation oid, each with its change table's key columns (name, type). */
export const LOG_TABLES_SQL = `select t.schema, t.name, t.change_table, t.relid::int8::text as relid,
  coalesce((select json_agg(json_build_object('name', a.attname::text, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod)) order by a.attnum)
    from pg_attribute a
    where a.attrelid = to_regclass(format('%I.%I', '${CHANGE_SCHEMA}', t.change_table)) and a.attnum > 0 and not a.attisdropped
      and a.attname not in (${CHANGE_COLUMNS.map((column) => `'${column}'`).join(', ')})), '[]') as keys
from ${TRACKED_TABLES} t where t.capture = 'log' and t.relid is not null`;

/** Where every transaction committed before now is in the WAL, and the horizon below which every transaction has ended. */
export const RELAY_TARGET_SQL = `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, pg_current_wal_insert_lsn()::text as lsn`;
export const WAL_FLUSHED_SQL = `select pg_current_wal_flush_lsn() >= $1::pg_lsn as flushed`;

/** $1 slot, $2 horizon, $3 LSN: the relay's position never moves back. */
export const SAVE_RELAY_POSITION_SQL = `insert into ${LOG_POSITION} (slot, relayed_horizon, relayed_lsn) values ($1, $2::xid8, $3::pg_lsn)
on conflict (slot) do update set relayed_horizon = greatest(${LOG_POSITION}.relayed_horizon, excluded.relayed_horizon),
  relayed_lsn = greatest(${LOG_POSITION}.relayed_lsn, excluded.relayed_lsn), relayed_at = now()`;

/** The horizon a change read of a log-captured table stops at: null before the first relay. */
export const RELAYED_HORIZON_SQL = `select relayed_horizon::text as horizon from ${LOG_POSITION}
where slot = (select '${CHANGE_SCHEMA}_' || oid::text from pg_database where datname = current_database())`;

/** $1 schema, $2 name, $3 xid (text), $4 reason: a table whose changes the log could not give (truncated, key lost). */
export const RECORD_LOG_FAILURE_SQL = `insert into ${CAPTURE_FAILURES} (schema, name, failed_xid, reason) values ($1, $2, $3::xid8, left($4, 300))`;

/**
 * A slot that was lost or recreated: nothing relayed before is continuous with what comes now, so every log-captured
 * table's minimum valid version moves to $1 (every change read below it is refused and reseeds), and so does the relay.
 */
export const RESTART_LOG_TABLES_SQL = `update ${TRACKED_TABLES} set min_valid_version = greatest(min_valid_version, $1::xid8) where capture = 'log'`;
export const RESTART_RELAY_POSITION_SQL = `update ${LOG_POSITION} set relayed_horizon = greatest(relayed_horizon, $2::xid8), relayed_lsn = $3::pg_lsn, relayed_at = now() where slot = $1`;

/**
 * Published tables whose primary key or replica identity went away since (ALTER TABLE … DROP CONSTRAINT, REPLICA
 * IDENTITY NOTHING): their UPDATEs and DELETEs fail while they are published, so the relay takes them out at once.
 */
export const IDENTITY_LOST_SQL = `select format('%I.%I', n.nspname, c.relname) as qualified, t.schema, t.name
from pg_publication_rel pr
join pg_publication p on p.oid = pr.prpubid and p.pubname = '${PUBLICATION}'
join pg_class c on c.oid = pr.prrelid
join pg_namespace n on n.oid = c.relnamespace
left join ${TRACKED_TABLES} t on t.relid = c.oid and t.capture = 'log'
where not (c.relreplident = 'f' or (c.relreplident = 'd' and exists (select from pg_index i where i.indrelid = c.oid and i.indisprimary)))`;

/**
 * $1 the table (qualified), $2 its relid as registered: log capture is in place when the publication holds the table
 * under the oid it was registered with (a table dropped and created again is another relation), and the change table exists.
 */
export const LOG_CAPTURE_INTACT_SQL = `select to_regclass($3) is not null and to_regclass($1) = $2::int8::oid and exists (
  select from pg_publication_rel pr join pg_publication p on p.oid = pr.prpubid
  where p.pubname = '${PUBLICATION}' and pr.prrelid = to_regclass($1)) as intact`;

/**
 * Ends the sessions of the database's relay leader, wherever it runs: the one holding the relay lock (an advisory lock
 * on a bigint, which pg_locks splits into classid and objid) and the walsender of the database's slot.
 */
export const END_RELAY_SESSIONS_SQL = `select pg_terminate_backend(pid) from (
  select l.pid from pg_locks l
  where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.pid <> pg_backend_pid()
    and l.database = (select oid from pg_database where datname = current_database())
    and ((l.classid::int8 << 32) | l.objid::int8) = ${RELAY_LOCK_KEY_SQL}::int8
  union
  select s.active_pid from pg_replication_slots s
  where s.slot_name = (select '${CHANGE_SCHEMA}_' || oid::text from pg_database where datname = current_database()) and s.active_pid is not null
) relay`;

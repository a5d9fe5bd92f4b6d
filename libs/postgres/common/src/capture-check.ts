import { CHANGE_TRACKING_SCHEMA, tableKey, type TableRef } from '@svc/contracts';
import type { CaptureCheck } from '@svc/engines';
import type { Client } from 'pg';

/**
 * What the login can do about capture in this database: wal_level, whether it may use a replication slot (REPLICATION,
 * superuser, or on Amazon RDS and Aurora membership of rds_replication), create the publication and the schema
 * svc_ct, and for each table ($1 schemas, $2 names) whether it owns it (publishing needs ownership) or may at least
 * create triggers on it, and read it.
 */
const CAPTURE_RIGHTS_SQL = `select current_setting('wal_level') as wal_level, current_user::text as login,
  current_setting('max_wal_senders')::int as max_wal_senders,
  (select r.rolsuper or r.rolreplication
      or exists (select from pg_roles g where g.rolname = 'rds_replication' and pg_has_role(current_user, g.oid, 'member'))
    from pg_roles r where r.rolname = current_user) as can_replicate,
  has_database_privilege(current_database(), 'CREATE') as can_create,
  exists (select from pg_namespace where nspname = '${CHANGE_TRACKING_SCHEMA}') as schema_exists,
  (select '${CHANGE_TRACKING_SCHEMA}_' || oid::text from pg_database where datname = current_database()) as slot,
  coalesce((select json_agg(json_build_object('schema', t.schema, 'name', t.name,
      'owned', pg_has_role(current_user, c.relowner, 'usage'),
      'trigger', has_table_privilege(c.oid, 'TRIGGER'),
      'select', has_table_privilege(c.oid, 'SELECT'),
      'identity', c.relreplident = 'f' or (c.relreplident = 'd' and exists (select from pg_index i where i.indrelid = c.oid and i.indisprimary))) order by t.ordinality)
    from unnest($1::text[], $2::text[]) with ordinality as t(schema, name, ordinality)
    join pg_class c on c.oid = to_regclass(format('%I.%I', t.schema, t.name))), '[]') as tables`;

interface CaptureRights {
  wal_level: string;
  login: string;
  /** The log is streamed through a walsender: none allowed, none to stream with. */
  max_wal_senders: number;
  can_replicate: boolean;
  can_create: boolean;
  schema_exists: boolean;
  slot: string;
  /** `identity`: the replica identity gives a deleted row's key (DEFAULT with a primary key, or FULL). */
  tables: { schema: string; name: string; owned: boolean; trigger: boolean; select: boolean; identity: boolean }[];
}

/** How many table names a message lists before "and N more". */
const NAMED_TABLES = 5;

/**
 * Create's check of a PostgreSQL source's capture (issue 38): changes are read from the log when the server and the
 * login allow it; otherwise by triggers, and the Note says why and how to move to the log; a login that can do neither
 * for some table is refused, naming the tables and the grant that fixes it. `tables` are the keyed tables replicated.
 */
export async function checkPostgresCapture(client: Client, tables: readonly TableRef[]): Promise<CaptureCheck> {
  const rights = (await client.query<CaptureRights>(CAPTURE_RIGHTS_SQL, [tables.map((table) => table.schema), tables.map((table) => table.name)])).rows[0];
  if (rights === undefined) return { problems: [], note: '' };
  const unreadable = rights.tables.filter((table) => !table.select);
  const problems: string[] = [];
  if (unreadable.length > 0) problems.push(`the login ${rights.login} cannot read ${named(unreadable)}: GRANT SELECT on them`);
  const logReady = rights.wal_level === 'logical' && rights.max_wal_senders > 0 && rights.can_replicate && rights.can_create;
  const byLog = logReady && rights.tables.every((table) => table.owned);
  if (byLog || tables.length === 0) return { problems, note: byLog ? logNote(rights) + identityNote(rights) : '' };
  const noTriggers = rights.tables.filter((table) => !table.owned && !table.trigger);
  if (noTriggers.length > 0) {
    problems.push(`the login ${rights.login} can capture the changes of ${named(noTriggers)} neither from the log nor by triggers: make it their owner (or GRANT TRIGGER on them)${logReady ? '' : `, and for the log ${logFixes(rights).join('; ')}`}`);
  }
  if (!rights.can_create && !rights.schema_exists) problems.push(`the login ${rights.login} may not create the schema ${CHANGE_TRACKING_SCHEMA} that capture needs: GRANT CREATE ON DATABASE to it`);
  if (problems.length > 0) return { problems, note: '' };
  const notOwned = rights.tables.filter((table) => !table.owned);
  const why = logReady ? [`the login ${rights.login} does not own ${named(notOwned)} (publishing a table needs its owner)`] : logFixes(rights);
  return {
    problems,
    note: `Changes are captured by triggers on the source's tables, because ${logReady ? why.join('') : 'logical decoding is not available'}. To read them from the write-ahead log instead (nothing runs in your writes): ${why.join('; ')}; then Alter or reseed the tables.`,
  };
}

function logNote(rights: CaptureRights): string {
  return `Changes are read from the write-ahead log through replication slot ${rights.slot} and publication ${CHANGE_TRACKING_SCHEMA}. The slot keeps WAL while the service is stopped: bound it with max_slot_wal_keep_size.`;
}

/** The tables the log cannot give a deleted row's key for: captured by triggers even where the log is available. */
function identityNote(rights: CaptureRights): string {
  const without = rights.tables.filter((table) => !table.identity);
  if (without.length === 0) return '';
  return ` The changes of ${named(without)} are captured by triggers instead: a replica identity of NOTHING or of another index than the primary key does not give a deleted row's key (ALTER TABLE … REPLICA IDENTITY DEFAULT moves a table to the log at its next reseed).`;
}

function logFixes(rights: CaptureRights): string[] {
  const fixes: string[] = [];
  if (rights.wal_level !== 'logical') {
    fixes.push(
      `set wal_level = logical and restart the server (it is ${rights.wal_level}; Amazon RDS and Aurora: rds.logical_replication = 1; Azure: azure.replication_support = logical; Cloud SQL: cloudsql.logical_decoding = on)`,
    );
  }
  if (rights.max_wal_senders <= 0) fixes.push('set max_wal_senders to at least 1 (the service streams the log through one walsender per source database) and restart the server');
  if (!rights.can_replicate) fixes.push(`ALTER ROLE ${rights.login} WITH REPLICATION (Amazon RDS: GRANT rds_replication TO ${rights.login})`);
  if (!rights.can_create) fixes.push(`GRANT CREATE ON DATABASE to ${rights.login} (for the publication)`);
  return fixes;
}

function named(tables: readonly { schema: string; name: string }[]): string {
  const names = tables.slice(0, NAMED_TABLES).map((table) => tableKey(table));
  return tables.length > NAMED_TABLES ? `${names.join(', ')} and ${tables.length - NAMED_TABLES} more` : names.join(', ');
}

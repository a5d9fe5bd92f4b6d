import { CHANGE_TRACKING_SCHEMA, type ListedTable } from '@svc/contracts';
import {
  POSTGRES_SCHEMES,
  UNREACHABLE_REASON,
  hasScheme,
  parseServerUrl,
  probeOrReason,
  settleProbe,
  socketFailureReason,
  unlessUnparsable,
  type CaptureCheck,
  type ConnectOptions,
  type DatabaseAccess,
  type FailureContext,
  type ProbeOptions,
} from '@svc/engines';
import { Client, type ClientConfig } from 'pg';
import { postgresClientConfig } from './postgres-config';
import { postgresFailureReason } from './postgres-failure';
import { checkPostgresCapture } from './capture-check';

/**
 * The user tables of a PostgreSQL database (alias `c` for pg_class, `n` for pg_namespace): ordinary and
 * partitioned tables, not partitions, temporary tables, system schemas or the change-tracking schema.
 * Source discovery (libs/postgres/source) uses the same filter, so a listing and a discovery agree.
 */
export const POSTGRES_USER_TABLES_FILTER = `c.relkind in ('r', 'p')
  and not c.relispartition
  and c.relpersistence <> 't'
  and n.nspname not in ('pg_catalog', 'information_schema', '${CHANGE_TRACKING_SCHEMA}')
  and n.nspname !~ '^pg_(toast|temp_)'`;

const POSTGRES_LIST_SQL = `select n.nspname::text as schema, c.relname::text as name,
  coalesce((select array_agg(a.attname::text order by k.position)
              from pg_index i
              cross join unnest(i.indkey) with ordinality as k(attnum, position)
              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
             where i.indrelid = c.oid and i.indisprimary), '{}') as primary_key,
  greatest(c.reltuples, 0)::float8 as estimated_rows
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
where ${POSTGRES_USER_TABLES_FILTER}
order by 1, 2`;

interface ListedRow {
  schema: string;
  name: string;
  primary_key: string[];
  estimated_rows: number | string | null;
}

/** A probe's or listing's driver options: its encryption, its deadline as the connect timeout, its dial policy. */
function connectOptionsOf(options: ProbeOptions): ConnectOptions {
  return { encrypt: options.encrypt, connectTimeoutMs: options.timeoutMs, ...(options.dial && { dial: options.dial }) };
}

/** Only the driver config matters to identity; nothing connects. */
const IDENTITY_OPTIONS = { encrypt: false, connectTimeoutMs: 1 };

/** How a PostgreSQL connection attempt failed, in a few secret-free words; UNREACHABLE_REASON when no PostgreSQL server answered. */
export function postgresConnectionFailure(error: unknown, context: FailureContext): string {
  return postgresFailureReason(error, context) ?? socketFailureReason(error) ?? UNREACHABLE_REASON;
}

/**
 * Opens a connection with `config` and runs `select 1`: null, or why not. `database` is named in a reason only
 * when it comes from a public field (a malformed connection string may have cut it from the password).
 */
export async function probePostgres(config: ClientConfig, timeoutMs: number, database?: string): Promise<string | null> {
  const client = new Client(config);
  // A connection dropped by the server after the probe must not become an unhandled 'error' event.
  client.on('error', () => undefined);
  const attempt = (async () => {
    await client.connect();
    await client.query('select 1');
  })();
  return settleProbe(attempt, () => client.end(), { ...(database !== undefined && { database }), timeoutMs }, postgresConnectionFailure);
}

/** PostgreSQL `postgres://…` connection strings, for Create and Alter. */
export const postgresAccess: DatabaseAccess = {
  recognizes: (connectionString) => hasScheme(connectionString, POSTGRES_SCHEMES) && parseServerUrl(connectionString) !== null,

  databaseName: (connectionString) => {
    const path = parseServerUrl(connectionString)?.path ?? [];
    return path.length > 0 ? path.join('/') : null;
  },

  databaseIdentity: (connectionString) =>
    unlessUnparsable(() => {
      const config = postgresClientConfig(connectionString, IDENTITY_OPTIONS);
      return `postgres://${String(config.host)}:${String(config.port)}/${String(config.database)}`.toLowerCase();
    }),

  endpoint: (connectionString) => {
    const config = postgresClientConfig(connectionString, IDENTITY_OPTIONS);
    return { host: String(config.host), port: config.port, database: String(config.database) };
  },

  probe: (connectionString, options: ProbeOptions) =>
    probeOrReason(
      () => probePostgres(postgresClientConfig(connectionString, connectOptionsOf(options)), options.timeoutMs),
      (error) => postgresConnectionFailure(error, { timeoutMs: options.timeoutMs }),
    ),

  listTables: async (connectionString, options: ProbeOptions): Promise<ListedTable[]> => {
    const client = new Client({ ...postgresClientConfig(connectionString, connectOptionsOf(options)), statement_timeout: options.timeoutMs });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const rows = (await client.query<ListedRow>(POSTGRES_LIST_SQL)).rows;
      return rows.map((row) => ({ table: { schema: row.schema, name: row.name }, primaryKey: row.primary_key, estimatedRows: Math.round(Number(row.estimated_rows ?? 0)) }));
    } finally {
      await client.end().catch(() => undefined);
    }
  },

  checkCapture: async (connectionString, options: ProbeOptions, tables): Promise<CaptureCheck> => {
    const client = new Client({ ...postgresClientConfig(connectionString, connectOptionsOf(options)), statement_timeout: options.timeoutMs });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await checkPostgresCapture(client, tables);
    } finally {
      await client.end().catch(() => undefined);
    }
  },

  failureReason: postgresFailureReason,
};

import { CHANGE_TRACKING_SCHEMA, type ListedTable } from '@svc/contracts';
import {
  UNREACHABLE_REASON,
  hasScheme,
  parseServerUrl,
  probeOrReason,
  settleProbe,
  socketFailureReason,
  unlessUnparsable,
  type ConnectOptions,
  type DatabaseAccess,
  type FailureContext,
  type ProbeOptions,
  type StagingPreparation,
  type StagingPreparationRequest,
} from '@svc/engines';
import type { ConnectionPool, config as MssqlConfig } from 'mssql';
import { adoValue, parseAdoConnectionString } from '@svc/logging';
import { ADO_KEYS } from './ado-keys';
import { SQL_SERVER_SCHEMES, parseSqlServerAddress } from './sql-server-address';
import { sqlServerConfig, sqlServerDatabaseName } from './sql-server-config';
import { sqlServerFailureReason } from './sql-server-failure';
import { MssqlDatabase } from './mssql-session';
import { prepareStagingDatabase } from './prepare-staging';
import { mssqlPoolGate } from './gated-pool';
import { connectSqlServer } from './tls-fallback';

/** One row per key column (one row with a NULL key column for a table without a key), in key order; no STRING_AGG, which SQL Server 2016 lacks. */
export const SQL_SERVER_LIST_SQL = `SELECT s.name AS [schema], t.name AS [name], col.name AS key_column,
  (SELECT SUM(p.rows) FROM sys.partitions p WHERE p.object_id = t.object_id AND p.index_id IN (0, 1)) AS estimated_rows
FROM sys.tables t
JOIN sys.schemas s ON s.schema_id = t.schema_id
LEFT JOIN sys.indexes i ON i.object_id = t.object_id AND i.is_primary_key = 1
LEFT JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
LEFT JOIN sys.columns col ON col.object_id = ic.object_id AND col.column_id = ic.column_id
WHERE t.is_ms_shipped = 0 AND s.name <> '${CHANGE_TRACKING_SCHEMA}'
ORDER BY s.name, t.name, ic.key_ordinal`;

export interface SqlServerRow {
  schema: string;
  name: string;
  key_column: string | null;
  estimated_rows: number | string | null;
}

/** Rows of one table (ordered by table, then key ordinal) become one listed table with its key columns. */
export function keyColumnsGathered(rows: readonly SqlServerRow[]): ListedTable[] {
  const tables: { schema: string; name: string; primaryKey: string[]; estimatedRows: number | string | null }[] = [];
  for (const row of rows) {
    const last = tables[tables.length - 1];
    const current = last && last.schema === row.schema && last.name === row.name ? last : undefined;
    const table = current ?? { schema: row.schema, name: row.name, primaryKey: [], estimatedRows: row.estimated_rows };
    if (!current) tables.push(table);
    if (row.key_column !== null) table.primaryKey.push(row.key_column);
  }
  return tables.map((table) => ({ table: { schema: table.schema, name: table.name }, primaryKey: table.primaryKey, estimatedRows: Math.round(Number(table.estimatedRows ?? 0)) }));
}

/** A probe's or listing's driver options: its encryption, its deadline as the connect timeout, its dial policy. */
function connectOptionsOf(options: ProbeOptions): ConnectOptions {
  return { encrypt: options.encrypt, connectTimeoutMs: options.timeoutMs, ...(options.dial && { dial: options.dial }) };
}

/** Only the driver config matters to identity; nothing connects. */
const IDENTITY_OPTIONS = { encrypt: false, connectTimeoutMs: 1 };

/** How a SQL Server connection attempt failed, in a few secret-free words. */
export function sqlServerConnectionFailure(error: unknown, context: FailureContext): string {
  return sqlServerFailureReason(error, context) ?? socketFailureReason(error) ?? UNREACHABLE_REASON;
}

async function probeSqlServer(config: MssqlConfig, timeoutMs: number): Promise<string | null> {
  let pool: ConnectionPool | undefined;
  const attempt = (async () => {
    pool = await connectSqlServer({ ...config, requestTimeout: timeoutMs, pool: { min: 0, max: 1 } });
    await pool.request().query('select 1');
  })();
  const close = async () => {
    await pool?.close();
  };
  return settleProbe(attempt, close, { timeoutMs }, sqlServerConnectionFailure);
}

/** Compatibility level and replicated logins (prepare-staging.ts), on one short-lived connection to each database. */
async function prepareSqlServerStaging(request: StagingPreparationRequest): Promise<StagingPreparation> {
  const open = (database: { connectionString: string; encrypt: boolean }) =>
    new MssqlDatabase({
      ...sqlServerConfig(database.connectionString, { encrypt: database.encrypt, connectTimeoutMs: request.timeoutMs, ...(request.dial && { dial: request.dial }) }),
      requestTimeout: request.timeoutMs,
      pool: { min: 0, max: 1 },
    }, mssqlPoolGate(1, { owner: 'Source', waitMs: request.timeoutMs, sizeSetting: 'Create and Alter prepare the staging database on one connection.' }));
  const source = open(request.source);
  const staging = open(request.staging);
  try {
    return await prepareStagingDatabase(source, staging, { replicateCompatibilityLevel: request.replicateCompatibilityLevel, timeoutMs: request.timeoutMs });
  } finally {
    await Promise.allSettled([source.close(), staging.close()]);
  }
}

/** SQL Server connection strings (ADO `Server=…;` or `mssql://…`), for Create and Alter. */
export const sqlServerAccess: DatabaseAccess = {
  recognizes: (connectionString) => {
    if (hasScheme(connectionString, SQL_SERVER_SCHEMES)) {
      const url = parseServerUrl(connectionString);
      return url !== null && url.host !== '';
    }
    if (/^\s*[a-z][a-z0-9+.-]*:\/\//i.test(connectionString)) return false;
    const pairs = parseAdoConnectionString(connectionString);
    if (pairs === null) return false;
    const server = adoValue(pairs, ADO_KEYS.server);
    return server !== undefined && parseSqlServerAddress(server) !== null;
  },

  databaseName: (connectionString) => unlessUnparsable(() => sqlServerDatabaseName(connectionString)) ?? null,

  databaseIdentity: (connectionString) =>
    unlessUnparsable(() => {
      const config = sqlServerConfig(connectionString, IDENTITY_OPTIONS);
      const instance = config.options?.instanceName ?? '';
      return `sqlserver://${config.server}:${String(config.port ?? '')}${instance}/${config.database ?? ''}`.toLowerCase();
    }),

  endpoint: (connectionString) => {
    const config = sqlServerConfig(connectionString, IDENTITY_OPTIONS);
    return { host: config.server, port: config.port, database: config.database ?? '' };
  },

  probe: (connectionString, options: ProbeOptions) =>
    probeOrReason(
      () => probeSqlServer(sqlServerConfig(connectionString, connectOptionsOf(options)), options.timeoutMs),
      (error) => sqlServerConnectionFailure(error, { timeoutMs: options.timeoutMs }),
    ),

  listTables: async (connectionString, options: ProbeOptions): Promise<ListedTable[]> => {
    const config = sqlServerConfig(connectionString, connectOptionsOf(options));
    const pool = await connectSqlServer({ ...config, requestTimeout: options.timeoutMs, pool: { min: 0, max: 1 } });
    try {
      return keyColumnsGathered((await pool.request().query<SqlServerRow>(SQL_SERVER_LIST_SQL)).recordset);
    } finally {
      await pool.close().catch(() => undefined);
    }
  },

  failureReason: sqlServerFailureReason,

  prepareStaging: prepareSqlServerStaging,
};

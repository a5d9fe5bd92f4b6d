import { retentionHours, type ListedTable, type RetentionPeriod, type TableRef } from '@svc/contracts';
import {
  ConnectionStringError,
  UNREACHABLE_REASON,
  hasScheme,
  parseServerUrl,
  probeOrReason,
  settleProbe,
  socketFailureReason,
  unlessUnparsable,
  type CaptureCheck,
  type DatabaseAccess,
  type FailureContext,
  type ProbeOptions,
} from '@svc/engines';
import type { RowDataPacket } from 'mysql2';
import { createConnection, type Connection } from 'mysql2/promise';
import { captureSettings, privilegeProblems, reconcileRetention, settingProblems } from './capture-check';
import { databaseFilter } from './identifiers';
import { MYSQL_SCHEMES, mysqlConnectionOptions, mysqlIdentity } from './mysql-config';
import { mysqlFailureReason } from './mysql-errors';

const IDENTITY_OPTIONS = { encrypt: false, connectTimeoutMs: 1 };

export function mysqlConnectionFailure(error: unknown, context: FailureContext): string {
  return mysqlFailureReason(error, context) ?? socketFailureReason(error) ?? UNREACHABLE_REASON;
}

async function connected(connectionString: string, options: ProbeOptions): Promise<Connection> {
  const connection = await createConnection(mysqlConnectionOptions(connectionString, { encrypt: options.encrypt, connectTimeoutMs: options.timeoutMs, ...(options.dial && { dial: options.dial }) }));
  connection.on('error', () => undefined);
  return connection;
}

async function withConnection<T>(connectionString: string, options: ProbeOptions, work: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = await connected(connectionString, options);
  try {
    await connection.query(`SET SESSION max_statement_time = ${Math.max(1, Math.ceil(options.timeoutMs / 1000))}`).catch(() => undefined);
    return await work(connection);
  } finally {
    connection.destroy();
  }
}

/**
 * Base tables of the source's databases (the one the string names, or every user database) with their primary-key
 * columns in key order, and the row estimate.
 */
const listSql = (scope: string) => `SELECT t.TABLE_SCHEMA AS \`schema\`, t.TABLE_NAME AS name, COALESCE(t.TABLE_ROWS, 0) AS estimatedRows,
       (SELECT GROUP_CONCAT(s.COLUMN_NAME ORDER BY s.SEQ_IN_INDEX SEPARATOR '\\0') FROM information_schema.STATISTICS s
         WHERE s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME AND s.INDEX_NAME = 'PRIMARY') AS primaryKey
  FROM information_schema.TABLES t
 WHERE ${scope} AND t.TABLE_TYPE = 'BASE TABLE'
 ORDER BY t.TABLE_SCHEMA, t.TABLE_NAME`;

/**
 * MySQL and MariaDB `mysql://…` / `mariadb://…` connection strings, for Create and Alter. A database is the schema of its
 * tables; a string without one reads every user database of the server.
 */
export const mysqlAccess: DatabaseAccess = {
  recognizes: (connectionString) => hasScheme(connectionString, MYSQL_SCHEMES) && parseServerUrl(connectionString) !== null,

  databaseName: (connectionString) => parseServerUrl(connectionString)?.path[0] ?? null,

  databaseIdentity: (connectionString) => unlessUnparsable(() => mysqlIdentity(connectionString)),

  endpoint: (connectionString) => {
    const options = mysqlConnectionOptions(connectionString, IDENTITY_OPTIONS);
    if (options.host === undefined) throw new ConnectionStringError('a mysql:// connection string names a host');
    return { host: options.host, port: options.port, database: options.database ?? '' };
  },

  probe: (connectionString, options) =>
    probeOrReason(
      async () => {
        const config = mysqlConnectionOptions(connectionString, { encrypt: options.encrypt, connectTimeoutMs: options.timeoutMs, ...(options.dial && { dial: options.dial }) });
        let connection: Connection | undefined;
        const attempt = (async () => {
          connection = await createConnection(config);
          connection.on('error', () => undefined);
          await connection.query('SELECT 1');
        })();
        return settleProbe(attempt, async () => connection?.destroy(), { ...(config.database !== undefined && { database: config.database }), timeoutMs: options.timeoutMs }, mysqlConnectionFailure);
      },
      (error) => mysqlConnectionFailure(error, { timeoutMs: options.timeoutMs }),
    ),

  listTables: (connectionString, options): Promise<ListedTable[]> =>
    withConnection(connectionString, options, async (connection) => {
      const { database } = mysqlConnectionOptions(connectionString, IDENTITY_OPTIONS);
      const scope = databaseFilter('t.TABLE_SCHEMA', database ?? null);
      const [rows] = await connection.query<RowDataPacket[]>(listSql(scope.sql), scope.values);
      return rows.map((row) => ({
        table: { schema: String(row['schema']), name: String(row['name']) },
        primaryKey: row['primaryKey'] === null || row['primaryKey'] === undefined ? [] : String(row['primaryKey']).split('\0'),
        estimatedRows: Number(row['estimatedRows'] ?? 0),
      }));
    }),

  checkCapture: (connectionString, options, tables: readonly TableRef[], retention?: RetentionPeriod): Promise<CaptureCheck> =>
    withConnection(connectionString, options, async (connection) => {
      if (tables.length === 0) return { problems: [], note: '' };
      const database = mysqlConnectionOptions(connectionString, IDENTITY_OPTIONS).database ?? null;
      const settings = await captureSettings(connection);
      const problems = [...settingProblems(settings), ...(await privilegeProblems(connection, database))];
      const kept = retention === undefined || problems.length > 0 ? { problems: [], note: '' } : await reconcileRetention(connection, settings, retentionHours(retention) * 3600, retention);
      const note = 'Changes are read from the source server\'s binary log.';
      return { problems: [...problems, ...kept.problems], note: kept.note === '' ? note : `${note} ${kept.note}` };
    }),

  failureReason: mysqlFailureReason,
};

import { serveSqlServerConnectionsForTests } from '@svc/sqlserver/common';
import type { config as MssqlConfig } from 'mssql';
import { MssqlDoubleError, MssqlPoolOnPostgres } from './pool-on-postgres';

/**
 * Test hook (SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES=<a PostgreSQL server URL>, never in production): every SQL Server
 * connection the process makes is served by the PostgreSQL database of the same name on that server, through the
 * model of SQL Server there (Change Tracking, change-tracking-model.ts; the T-SQL runtime, tsql-runtime.ts; the
 * statements translated, tsql-to-postgres.ts). It lets the generic suite run the SQL Server source and staging where no
 * SQL Server exists; the pairs that use it say so in their names. Host, port, login and encryption of the connection
 * string are not used.
 */
export const SQLSERVER_ON_POSTGRES_HOOK = 'SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES';

/** The PostgreSQL server URL the hook names; null when it is off. */
export function sqlServerServedByPostgresForTests(env: NodeJS.ProcessEnv = process.env): string | null {
  const url = env[SQLSERVER_ON_POSTGRES_HOOK];
  return url === undefined || url === '' ? null : url;
}

/** The database `database` on the PostgreSQL server `serverUrl`. */
export function postgresDatabaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** Serves every connectSqlServer of this process from `serverUrl` (see SQLSERVER_ON_POSTGRES_HOOK). */
export function serveSqlServerOnPostgres(serverUrl: string): void {
  serveSqlServerConnectionsForTests(async (config: MssqlConfig) => {
    const database = config.database;
    if (database === undefined || database === '') throw new MssqlDoubleError('ConnectionError', 'the PostgreSQL model of SQL Server needs a database name', 'ELOGIN');
    const pool = new MssqlPoolOnPostgres(postgresDatabaseUrl(serverUrl, database), {});
    try {
      return (await pool.ready()).connectionPool;
    } catch (error) {
      await pool.close().catch(() => undefined);
      // SQL Server's 4060: "Cannot open database … requested by the login. The login failed."
      const missing = (error as { code?: unknown } | null)?.code === '3D000';
      if (!missing) throw error;
      throw new MssqlDoubleError('ConnectionError', `Login failed: Cannot open database "${database}" requested by the login.`, 'ELOGIN', 4060);
    }
  });
}

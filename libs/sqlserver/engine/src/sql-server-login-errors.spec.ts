import { connectSqlServer, sqlServerConfig } from '@svc/sqlserver/common';
import { startTdsServerDouble, type LoginError, type TdsServerDouble } from '@svc/sqlserver/common/testing';
import { sqlServerErrorKind } from './sql-server-errors';

/**
 * Login-phase errors through the real tedious and mssql, from a double that answers LOGIN7 with the ERROR tokens
 * SQL Server sends. Texts and numbers: https://learn.microsoft.com/en-us/sql/relational-databases/errors-events/database-engine-events-and-errors
 * (4060, 18456) and https://learn.microsoft.com/en-us/azure/azure-sql/database/troubleshoot-common-errors-issues
 * (40613, 40501: transient, retry). A refused login to a database that cannot be opened sends 4060 and then 18456;
 * tedious keeps only the last message (node_modules/tedious/lib/token/handler.js:184-191).
 */
const CANNOT_OPEN: LoginError = { number: 4060, message: 'Cannot open database "shop" requested by the login. The login failed.' };
const LOGIN_FAILED: LoginError = { number: 18456, message: "Login failed for user 'replicator'." };
const NOT_AVAILABLE: LoginError = {
  number: 40613,
  message: "Database 'shop' on server 'double' is not currently available. Please retry the connection later.",
};
const BUSY: LoginError = { number: 40501, message: 'The service is currently busy. Retry the request after 10 seconds. Incident ID: 1. Code: 1.' };

describe('sqlServerErrorKind of a refused login', () => {
  let server: TdsServerDouble | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function loginError(loginErrors: readonly LoginError[]): Promise<unknown> {
    server = await startTdsServerDouble({ encryption: 'not-supported', loginErrors });
    const config = sqlServerConfig(`Server=127.0.0.1,${server.port};Database=shop;User Id=replicator;Password=secret`, { encrypt: false, connectTimeoutMs: 5000 });
    // tedious retries a login refused with a transient number itself (lib/connection.js:1133); none here, to keep the test short.
    const error: unknown = await connectSqlServer({ ...config, options: { ...config.options, maxRetriesOnTransientErrors: 0 } }).then(
      () => new Error('connected'),
      (refusal: unknown) => refusal,
    );
    return error;
  }

  it.each<[string, string, readonly LoginError[]]>([
    ['a database that cannot be opened (restoring, being created again): 4060 then 18456', 'transient', [CANNOT_OPEN, LOGIN_FAILED]],
    ['an Azure SQL database not available (reconfiguration, failover): 40613', 'transient', [NOT_AVAILABLE]],
    ['an Azure SQL service busy: 40501', 'transient', [BUSY]],
    ['wrong credentials: 18456 alone', 'authentication-failed', [LOGIN_FAILED]],
  ])('%s is %s', async (_name, kind, errors) => {
    const error = await loginError(errors);
    expect(error).toMatchObject({ name: 'ConnectionError', code: 'ELOGIN' });
    expect(sqlServerErrorKind(error)).toBe(kind);
  });
});

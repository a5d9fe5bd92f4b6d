import { loginErrorNumbers } from './login-errors';
import { sqlServerAccess } from './sqlserver-access';
import { startTdsServerDouble, type TdsServerDouble } from './testing';

/**
 * A login to a database that cannot be opened: SQL Server sends 4060 "Cannot open database … requested by the
 * login" and then 18456 "Login failed" (https://learn.microsoft.com/en-us/sql/relational-databases/errors-events/mssqlserver-4060-database-engine-error);
 * tedious keeps only the last message (node_modules/tedious/lib/token/handler.js:184-191).
 */
describe('a refused login through tedious and mssql', () => {
  let server: TdsServerDouble | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('keeps the numbers the server sent and words a database that cannot be opened as such', async () => {
    server = await startTdsServerDouble({
      encryption: 'not-supported',
      loginErrors: [
        { number: 4060, message: 'Cannot open database "shop" requested by the login. The login failed.' },
        { number: 18456, message: "Login failed for user 'replicator'." },
      ],
    });
    const reason = await sqlServerAccess.probe(`Server=127.0.0.1,${server.port};Database=shop;User Id=replicator;Password=secret`, { encrypt: false, timeoutMs: 5000 });
    expect(reason).toBe('cannot open database');
  });

  it('reads no numbers off an error that carries none', () => {
    expect(loginErrorNumbers(new Error('x'))).toEqual([]);
    expect(loginErrorNumbers({ originalError: { loginErrorNumbers: [4060, 'x', 18456] } })).toEqual([4060, 18456]);
  });
});

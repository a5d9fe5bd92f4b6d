import { createServer, type AddressInfo, type Server } from 'node:net';
import { HOST_POLICY_CODE, errorChain } from '@svc/engines';
import { sqlServerConfig } from './sql-server-config';
import { connectSqlServer } from './tls-fallback';

/** Issue 36: tedious opens its socket through the dial guard (options.connector), for every connect of a pool. */
describe('SQL Server connections under the dial policy', () => {
  let server: Server;
  let port = 0;
  let accepted = 0;

  beforeAll(async () => {
    // Bound to 127.0.0.1 only; it accepts and hangs up: no SQL Server, only a count of who got through.
    server = createServer((socket) => {
      accepted += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const attempt = async (allowLoopback: boolean) => {
    const config = sqlServerConfig(`Server=::ffff:127.0.0.1,${port};Database=x;User Id=sa;Password=pw`, { encrypt: false, connectTimeoutMs: 3000, dial: { allowLoopback } });
    const failed: unknown = await connectSqlServer({ ...config, pool: { min: 0, max: 1 } }).then(
      (pool) => pool.close().then(() => null),
      (error: unknown) => error,
    );
    return errorChain(failed).some((link) => link['code'] === HOST_POLICY_CODE);
  };

  it('refuses a loopback spelling before any packet when loopback is not allowed', async () => {
    const before = accepted;
    expect(await attempt(false)).toBe(true);
    expect(accepted).toBe(before);
  });

  it('dials it through the same connector when loopback is allowed', async () => {
    const before = accepted;
    expect(await attempt(true)).toBe(false);
    expect(accepted).toBeGreaterThan(before);
  });
});

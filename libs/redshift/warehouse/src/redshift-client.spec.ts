import { startMutePostgresServer, type MutePostgresServer } from '@svc/testing';
import { clientBoundMs, isClientQueryTimeout } from '@svc/engines';
import { KEEP_ALIVE_INITIAL_DELAY_MS, createRedshiftPool, redshiftClientConfig } from './redshift-client';

const warehouse = (port: number) => ({ url: `redshift://127.0.0.1:${port}`, databaseName: 'dev', username: 'loader', password: 'secret' });

describe('redshiftClientConfig', () => {
  it('turns TCP keep-alive on, so that a connection a network element dropped is found dead', () => {
    // node-postgres (node_modules/pg/lib/connection.js): `if (self._keepAlive) self.stream.setKeepAlive(true, self._keepAliveInitialDelayMillis)`.
    const config = redshiftClientConfig(warehouse(5439), { connectTimeoutMs: 1_000 });
    expect(config.keepAlive).toBe(true);
    expect(config.keepAliveInitialDelayMillis).toBe(KEEP_ALIVE_INITIAL_DELAY_MS);
  });
});

describe('createRedshiftPool', () => {
  it("sets every session to UTC before its first statement, whatever time zone the user's sessions start in", async () => {
    // "To set the time zone for all sessions run by a specific database user, use the ALTER USER command. ALTER USER …
    // SET TIMEZONE changes the time zone for subsequent sessions" (https://docs.aws.amazon.com/redshift/latest/dg/r_timezone_config.html);
    // SYSDATE and GETDATE() answer "in the current session time zone" (r_SYSDATE.html, r_GETDATE.html).
    const server = await startMutePostgresServer(/^(SET |SELECT 1$)/i);
    const pool = createRedshiftPool({ ...redshiftClientConfig(warehouse(server.port), { connectTimeoutMs: 2_000, tls: false }), max: 1 }, 1_000, { owner: 'Warehouse', waitMs: 5_000, sizeSetting: '' });
    try {
      await pool.query('SELECT 1');
      expect(server.queries).toEqual(['SET statement_timeout TO 1000', `SET timezone TO 'UTC'`, 'SELECT 1']);
    } finally {
      await pool.end();
      await server.stop();
    }
  });
});

describe('createRedshiftPool against a server that stops answering', () => {
  let server: MutePostgresServer;

  beforeEach(async () => {
    // The startup and `SET statement_timeout` are answered; any other statement never is, as on a connection a
    // NAT or load balancer dropped without a reset: the server-side statement_timeout cannot fire for the client.
    server = await startMutePostgresServer();
  });

  afterEach(async () => {
    await server.stop();
  });

  it('rejects a statement within the client bound and discards its connection', async () => {
    const statementTimeoutMs = 300;
    const pool = createRedshiftPool({ ...redshiftClientConfig(warehouse(server.port), { connectTimeoutMs: 2_000, tls: false }), max: 1 }, statementTimeoutMs, { owner: 'Warehouse', waitMs: 5_000, sizeSetting: '' });
    try {
      const started = Date.now();
      const failure = await pool.query('SELECT 1').then(
        () => null,
        (error: unknown) => error,
      );
      const elapsed = Date.now() - started;
      expect(isClientQueryTimeout(failure)).toBe(true);
      expect(elapsed).toBeGreaterThanOrEqual(statementTimeoutMs);
      expect(elapsed).toBeLessThan(clientBoundMs(statementTimeoutMs) + 1_000);
      expect(server.queries).toEqual([`SET statement_timeout TO ${statementTimeoutMs}`, `SET timezone TO 'UTC'`, 'SELECT 1']);
      // The connection whose statement got no answer is not handed out again: the pool closed it.
      expect(pool.totalCount).toBe(0);
    } finally {
      await pool.end();
    }
  }, 15_000);
});

import { isClientQueryTimeout } from '@svc/engines';
import { startMutePostgresServer, waitUntil, type MutePostgresServer } from '@svc/testing';
import { createPostgresWarehouse } from './postgres-warehouse';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

describe('the PostgreSQL warehouse against a server that stops answering', () => {
  let server: MutePostgresServer;

  beforeEach(async () => {
    // Startup answered, then silence: a connection a network element dropped without a reset. The server's own
    // statement_timeout can never reach the client, so only a client-side bound ends the wait.
    server = await startMutePostgresServer(/^$/);
  });

  afterEach(async () => {
    await server.stop();
  });

  it('fails a statement within the client bound and does not reuse the connection', async () => {
    const warehouse = createPostgresWarehouse(
      { url: `postgres://127.0.0.1:${server.port}`, databaseName: 'warehouse', username: 'loader', password: 'secret' },
      { statementTimeoutMs: 300, maxConnections: 1, bareNameSchemas: TEST_BARE_NAME_SCHEMAS },
    );
    try {
      const started = Date.now();
      const failure = await warehouse.hasTable({ schema: 'sales', name: 'orders' }, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isClientQueryTimeout(failure)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
      // The pool closed the connection whose statement got no answer.
      await waitUntil(() => Promise.resolve(server.openConnections() === 0), 3_000, 'the connection to close');
    } finally {
      await warehouse.close();
    }
  }, 15_000);
});

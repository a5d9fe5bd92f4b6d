import { startRecordingPostgresServer } from '@svc/testing';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';
import { createPostgresWarehouse } from './postgres-warehouse';

describe("the PostgreSQL warehouse's sessions", () => {
  it('start in UTC, whatever time zone the role or database gives new sessions', async () => {
    // The startup packet's options, as libpq's PGOPTIONS: "Settings established in this way constitute defaults for the
    // life of the session" (https://www.postgresql.org/docs/current/config-setting.html#CONFIG-SETTING-SHELL); that they
    // outrank a database's or role's default is shown on a real server (load-time.integration-spec.ts).
    const server = await startRecordingPostgresServer();
    const warehouse = createPostgresWarehouse(
      { url: `postgres://127.0.0.1:${server.port}`, databaseName: 'warehouse', username: 'loader', password: 'secret' },
      { statementTimeoutMs: 1_000, maxConnections: 1, bareNameSchemas: TEST_BARE_NAME_SCHEMAS },
    );
    try {
      await warehouse.hasTable({ schema: 'sales', name: 'orders' }, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false });
      expect(server.received()).toContain('options\0-c TimeZone=UTC\0');
    } finally {
      await warehouse.close();
      await server.stop();
    }
  });
});

import { HOST_POLICY_CODE } from '@svc/engines';
import { createTempDatabase, sampleReplicationConfig, type TempDatabase } from '@svc/testing';
import { EngineRegistry } from './engine-registry';

/**
 * Issue 36: a worker's connectors resolve their hosts again at every connect, held to the host policy with the
 * worker's ALLOW_LOOPBACK_TARGETS (a name that answered a public address at Create may answer 127.0.0.1 now).
 */
describe("a worker's connections under its dial policy (real PostgreSQL)", () => {
  let database: TempDatabase;
  const table = { schema: 'public', name: 'nothing_here' };
  const tableOptions = { schema: 'public', scdType: 'Type1' as const, addUpdateTimestamp: false };

  beforeAll(async () => {
    database = await createTempDatabase('svc_dial_policy');
  });

  afterAll(async () => {
    await database.drop();
  });

  // `localhost` as the name (resolved at connect), and the address in a spelling the host policy once missed.
  const configOn = (host: string) =>
    sampleReplicationConfig({
      source: { connectionString: `postgres://postgres@${host}:5432/${database.name}` },
      staging: { connectionString: `postgres://postgres@${host}:5432/${database.name}` },
      warehouse: { url: `postgres://${host}:5432`, databaseName: database.name, username: 'postgres', password: '' },
    });

  it.each(['localhost', '[::ffff:127.0.0.1]'])('refuses source, staging and warehouse on %s when loopback is not allowed, before any packet', async (host) => {
    const engines = new EngineRegistry(undefined, {}, { allowLoopback: false });
    const config = configOn(host);
    try {
      const refused = expect.objectContaining({ code: HOST_POLICY_CODE }) as unknown;
      await expect(engines.source(config).discoverTables()).rejects.toEqual(refused);
      await expect(engines.staging(config).existingColumns(table)).rejects.toEqual(refused);
      await expect(engines.warehouse(config).hasTable(table, tableOptions)).rejects.toEqual(refused);
    } finally {
      await engines.closeAll();
    }
  });

  it('connects to the same databases when the worker allows loopback (npm start, the test stacks)', async () => {
    const engines = new EngineRegistry(undefined, {}, { allowLoopback: true });
    const config = configOn('localhost');
    try {
      expect(await engines.source(config).discoverTables()).toEqual([]);
      expect(await engines.staging(config).existingColumns(table)).toBeNull();
      expect(await engines.warehouse(config).hasTable(table, tableOptions)).toBe(false);
    } finally {
      await engines.closeAll();
    }
  });
});

import { HOST_POLICY_CODE } from '@svc/engines';
import { PrivateMariaDb } from '@svc/testing';
import { mysqlEngine } from './mysql-engine';

/**
 * Issue 36's attack on this engine: a host that answers a loopback address at connect time (a name resolved again, or
 * an IPv4-mapped spelling) is refused by every MySQL connection of a worker that does not allow loopback — the pools'
 * and the binary-log reader's alike, which all dial through mysqlConnectionOptions' guarded stream — before any packet.
 */
describe('MySQL connections under the dial policy (a private MariaDB)', () => {
  let server: PrivateMariaDb;
  const table = { schema: 'shop', name: 'nothing_here' };

  beforeAll(async () => {
    server = await PrivateMariaDb.start();
    await server.execute('CREATE DATABASE shop');
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  const urlOn = (host: string) => `mysql://root@${host}:${server.port}/`;

  it.each(['localhost', '[::ffff:127.0.0.1]'])('refuses source reads, change reads and staging on %s when loopback is not allowed', async (host) => {
    const dial = { allowLoopback: false };
    const source = mysqlEngine.openSource?.(urlOn(host), false, undefined, dial);
    const staging = mysqlEngine.openStaging?.(urlOn(host), false, undefined, dial);
    if (source === undefined || staging === undefined) throw new Error('MySQL plays source and staging');
    try {
      const refused = expect.objectContaining({ code: HOST_POLICY_CODE }) as unknown;
      await expect(source.discoverTables()).rejects.toEqual(refused);
      await expect(source.changedTables([{ table, version: '4294967300' }], { schemaStamps: false })).rejects.toEqual(refused);
      await expect(staging.existingColumns(table)).rejects.toEqual(refused);
    } finally {
      await Promise.allSettled([source.close(), staging.close()]);
    }
  }, 60_000);

  it('connects to the same server when loopback is allowed (npm start, the test stacks)', async () => {
    const dial = { allowLoopback: true };
    const source = mysqlEngine.openSource?.(urlOn('localhost'), false, undefined, dial);
    const staging = mysqlEngine.openStaging?.(urlOn('localhost'), false, undefined, dial);
    if (source === undefined || staging === undefined) throw new Error('MySQL plays source and staging');
    try {
      expect(await source.discoverTables()).toEqual([]);
      expect(await staging.existingColumns(table)).toBeNull();
    } finally {
      await Promise.allSettled([source.close(), staging.close()]);
    }
  }, 60_000);
});

import { HOST_POLICY_CODE } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { checkReachability } from './reachability';
import { listSourceTables } from './source-tables';

/**
 * Issue 36: Create's probes dial the addresses the host policy checked (pinned), not a second answer of the
 * resolver; what connects again later (the table listing) is held to the policy at its own connect.
 */
describe("the registry's probes under the dial policy (real PostgreSQL)", () => {
  let database: TempDatabase;
  const s3 = { endpoint: 'http://127.0.0.1:1', allowBucketCreation: false };

  beforeAll(async () => {
    database = await createTempDatabase('svc_dial_probe');
  });

  afterAll(async () => {
    await database.drop();
  });

  const source = (host: string) => ({ connectionString: `postgres://postgres@${host}:5432/${database.name}`, encryptDataInTransit: false });

  it('dials the checked answer of a name, without resolving it again', async () => {
    const pinned = new Map([['db.rebind.invalid', ['127.0.0.1']]]);
    expect(await checkReachability({ source: source('db.rebind.invalid') }, { timeoutMs: 5000, s3, dial: { allowLoopback: true, pinned } })).toEqual([]);
  });

  it('never dials a checked answer the policy refuses: the probe words it as any unreachable server', async () => {
    const pinned = new Map([['db.rebind.invalid', ['169.254.169.254']]]);
    expect(await checkReachability({ source: source('db.rebind.invalid') }, { timeoutMs: 5000, s3, dial: { allowLoopback: true, pinned } })).toEqual([
      expect.stringMatching(/^\{Source\\ConnectionString\}: cannot reach db\.rebind\.invalid:5432 /),
    ]);
  });

  it('holds the table listing, which connects again, to the policy at its connect', async () => {
    const options = { encrypt: false, timeoutMs: 5000 };
    await expect(listSourceTables(source('localhost').connectionString, { ...options, dial: { allowLoopback: false } })).rejects.toMatchObject({ code: HOST_POLICY_CODE });
    expect(await listSourceTables(source('localhost').connectionString, { ...options, dial: { allowLoopback: true } })).toEqual([]);
  });
});

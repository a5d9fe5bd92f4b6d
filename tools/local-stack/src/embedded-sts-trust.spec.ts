import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_MASTER_KEY } from '@svc/config';
import { ExternalIdIssuer, parseMasterKey } from '@svc/crypto';
import { controlDatabaseOwners, externalIdTrust, freshOnMiss, trustMasterKeys } from './embedded-sts-trust';

const CURRENT = parseMasterKey('a'.repeat(64));
const PREVIOUS = parseMasterKey('b'.repeat(64));
const ROLE = { roleArn: 'arn:aws:iam::123456789012:role/svc-replication', accountId: '123456789012', roleName: 'svc-replication' };
const issued = (key: Buffer, ownerAccessKeyId: string, role = ROLE) => new ExternalIdIssuer(key).issue({ ownerAccessKeyId, accountId: role.accountId, roleName: role.roleName });

describe("the embedded STS's trust policy: the ExternalIds the registry issues", () => {
  it('trusts the ExternalId issued to one of the owners for this very role, under the current or a previous master key', async () => {
    const trust = externalIdTrust([CURRENT, PREVIOUS], () => Promise.resolve(['SVCLOCALDEVELOPMENT', 'SVCOTHER']));
    expect(await trust(ROLE, issued(CURRENT, 'SVCLOCALDEVELOPMENT'))).toBe(true);
    expect(await trust(ROLE, issued(CURRENT, 'SVCOTHER'))).toBe(true);
    expect(await trust(ROLE, issued(PREVIOUS, 'SVCOTHER'))).toBe(true);
  });

  it('refuses a missing ExternalId, one of another role or account, of an unknown key, or under another master key', async () => {
    const trust = externalIdTrust([CURRENT], () => Promise.resolve(['SVCLOCALDEVELOPMENT']));
    expect(await trust(ROLE, undefined)).toBe(false);
    expect(await trust(ROLE, issued(CURRENT, 'SVCLOCALDEVELOPMENT', { ...ROLE, roleName: 'other' }))).toBe(false);
    expect(await trust(ROLE, issued(CURRENT, 'SVCLOCALDEVELOPMENT', { ...ROLE, accountId: '210987654321' }))).toBe(false);
    expect(await trust(ROLE, issued(CURRENT, 'SVCSTRANGER'))).toBe(false);
    expect(await trust(ROLE, issued(PREVIOUS, 'SVCLOCALDEVELOPMENT'))).toBe(false);
    expect(await externalIdTrust([], () => Promise.resolve(['SVCLOCALDEVELOPMENT']))(ROLE, issued(CURRENT, 'SVCLOCALDEVELOPMENT'))).toBe(false);
  });
});

describe('the owners read from the control database', () => {
  function fakePool(rows: () => { id: string }[] | Error) {
    const queries: string[] = [];
    return {
      queries,
      pool: {
        query: (text: string) => {
          queries.push(text);
          const answer = rows();
          return answer instanceof Error ? Promise.reject(answer) : Promise.resolve({ rows: answer });
        },
      } as never,
    };
  }

  it('are every access key and the owners of replications, read again after a few seconds, and at once on a miss', async () => {
    let keys = ['SVCLOCALDEVELOPMENT'];
    let clock = 0;
    const { pool, queries } = fakePool(() => keys.map((id) => ({ id })));
    const source = controlDatabaseOwners(pool, () => clock);
    expect(await source.owners()).toEqual(['SVCLOCALDEVELOPMENT']);
    expect(queries[0]).toContain('FROM access_keys UNION SELECT owner_access_key_id FROM replications');
    keys = ['SVCLOCALDEVELOPMENT', 'SVCNEWKEY'];
    expect(await source.owners()).toEqual(['SVCLOCALDEVELOPMENT']);
    clock = 5000;
    expect(await source.owners()).toEqual(['SVCLOCALDEVELOPMENT', 'SVCNEWKEY']);

    // A key made a moment ago is trusted at once: a miss of the cached owners reads them again.
    keys = [...keys, 'SVCJUSTMADE'];
    const trust = freshOnMiss([CURRENT], source);
    expect(await trust(ROLE, issued(CURRENT, 'SVCJUSTMADE'))).toBe(true);
    expect(await trust(ROLE, issued(CURRENT, 'SVCNEVERMADE'))).toBe(false);
  });

  it('are none before the registry made its tables, and a database failure is not taken for a refusal', async () => {
    const early = controlDatabaseOwners(fakePool(() => Object.assign(new Error('relation "access_keys" does not exist'), { code: '42P01' })).pool);
    expect(await early.owners()).toEqual([]);
    const down = controlDatabaseOwners(fakePool(() => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).pool);
    await expect(down.owners()).rejects.toThrow('ECONNREFUSED');
  });
});

describe('the master keys the embedded STS issues ExternalIds under', () => {
  it("are the registry's: SVC_MASTER_KEY (or its file) and SVC_MASTER_KEY_PREVIOUS", () => {
    expect(trustMasterKeys({ SVC_MASTER_KEY: DEVELOPMENT_MASTER_KEY })).toEqual({ keys: [parseMasterKey(DEVELOPMENT_MASTER_KEY)] });
    expect(trustMasterKeys({ SVC_MASTER_KEY: 'a'.repeat(64), SVC_MASTER_KEY_PREVIOUS: ` ${'b'.repeat(64)} , not-a-key` })).toEqual({ keys: [CURRENT, PREVIOUS] });
    const directory = mkdtempSync(join(tmpdir(), 'svc-trust-keys-'));
    try {
      const file = join(directory, 'master-key');
      writeFileSync(file, `${'a'.repeat(64)}\n`);
      expect(trustMasterKeys({ SVC_MASTER_KEY_FILE: file })).toEqual({ keys: [CURRENT] });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('are none, and npm start says why, when KMS holds the master key or none can be read', () => {
    expect(trustMasterKeys({ SVC_MASTER_KEY_KMS_CIPHERTEXT: 'AQID' })).toEqual({ problem: expect.stringContaining('KMS') as unknown });
    expect(trustMasterKeys({ SVC_MASTER_KEY: 'short' })).toEqual({ problem: expect.stringContaining('no usable SVC_MASTER_KEY') as unknown });
  });
});

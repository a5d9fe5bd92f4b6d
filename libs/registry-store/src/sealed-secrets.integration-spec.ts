import { createCipheriv, randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox, masterKeyId } from '@svc/crypto';
import { createTempDatabase, sampleReplicationConfig, type TempDatabase } from '@svc/testing';
import { AccessKeyRepository } from './access-key-repository';
import { AlertTargetRepository } from './alert-target-repository';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { ReplicationRepository } from './replication-repository';
import { ResealError, resealStoredSecrets } from './reseal-secrets';
import { splitSecrets } from './secret-fields';

const author = { requestId: 'req-sealed', accessKeyId: 'SVCTESTKEY' };
const OPS_WEBHOOK = { type: 'Webhook' as const, url: 'https://hooks.example.com/services/secret-path', signingSecret: 'whsec-rotated-0123456789' };
const config = sampleReplicationConfig();

/** What SecretBox wrote before key ids and associated data (format 1). */
function sealInFormat1(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), ciphertext]);
}

async function sealedValue(pool: Pool, sql: string, id: string): Promise<Buffer> {
  const result = await pool.query<{ value: Buffer }>(sql, [id]);
  const value = result.rows[0]?.value;
  if (!value) throw new Error(`no row ${id}`);
  return value;
}

const replicationSecretsOf = (pool: Pool, id: string) => sealedValue(pool, 'SELECT secrets AS value FROM replications WHERE id = $1', id);
const accessKeySecretOf = (pool: Pool, id: string) => sealedValue(pool, 'SELECT secret AS value FROM access_keys WHERE access_key_id = $1', id);

describe('sealed secrets in the control database', () => {
  let database: TempDatabase;
  let pool: Pool;

  beforeEach(async () => {
    database = await createTempDatabase('svc_sealed_secrets');
    pool = new Pool({ connectionString: database.url, max: 4 });
  });

  afterEach(async () => {
    await pool?.end();
    await database?.drop();
  });

  describe('bound to where they belong', () => {
    const box = new SecretBox(randomBytes(32));
    let replications: ReplicationRepository;
    let keys: AccessKeyRepository;

    beforeEach(async () => {
      await migrate(pool);
      replications = new ReplicationRepository(pool, box);
      keys = new AccessKeyRepository(pool, box);
    });

    it("does not open one replication's secrets copied into another replication", async () => {
      const victim = await replications.insert({ status: 'Running', config }, author);
      const attacker = await replications.insert({ status: 'Running', config: { ...config, replicationName: 'attacker' } }, author);
      await pool.query('UPDATE replications SET secrets = (SELECT secrets FROM replications WHERE id = $1) WHERE id = $2', [
        victim.replicationId,
        attacker.replicationId,
      ]);
      await expect(replications.get(attacker.replicationId)).rejects.toThrow('sealed for another place');
      expect((await replications.get(victim.replicationId))?.config).toEqual(config);
    });

    it('does not open a value moved between access_keys.secret and replications.secrets', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      await keys.create({ accessKeyId: 'SVCMOVED', secretKey: 'secret-of-the-moved-key-0123456789', allowedOperations: ['*'], replicationScope: 'Own', description: '' });
      await keys.create({ accessKeyId: 'SVCOTHER', secretKey: 'secret-of-the-other-key-0123456789', allowedOperations: ['*'], replicationScope: 'Own', description: '' });
      const keySecret = await accessKeySecretOf(pool, 'SVCMOVED');
      const replicationSecret = await replicationSecretsOf(pool, stored.replicationId);

      await pool.query('UPDATE replications SET secrets = $2 WHERE id = $1', [stored.replicationId, keySecret]);
      await expect(replications.get(stored.replicationId)).rejects.toThrow('sealed for another place');
      await pool.query('UPDATE access_keys SET secret = $2 WHERE access_key_id = $1', ['SVCMOVED', replicationSecret]);
      await expect(keys.find('SVCMOVED')).rejects.toThrow('sealed for another place');
      await pool.query('UPDATE access_keys SET secret = $2 WHERE access_key_id = $1', ['SVCOTHER', keySecret]);
      await expect(keys.find('SVCOTHER')).rejects.toThrow('sealed for another place');
    });

    it('binds an update to the row whatever the case of the id it was given', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      const change = { config: { ...config, replicationName: 'renamed' }, status: 'Running' as const, lastError: null, changedFields: ['replicationName'] };
      await replications.update(stored.replicationId.toUpperCase(), 1, change, author);
      expect((await replications.get(stored.replicationId))?.config.replicationName).toBe('renamed');
    });
  });

  describe('upgrade from the format without key id and location (format 1)', () => {
    const key = randomBytes(32);
    const box = new SecretBox(key);
    let oldReplicationId = '';

    /** The schema and the rows the registry left before this format: version 5, format-1 values, the old bootstrap key. */
    beforeEach(async () => {
      await migrate(
        pool,
        MIGRATIONS.filter((migration) => migration.version <= 5),
      );
      const { publicConfig, secretsJson } = splitSecrets(config);
      const inserted = await pool.query<{ id: string }>(
        "INSERT INTO replications (name, status, config, secrets) VALUES ($1, 'Running', $2, $3) RETURNING id",
        [config.replicationName, publicConfig, sealInFormat1(key, secretsJson)],
      );
      oldReplicationId = inserted.rows[0]?.id ?? '';
      await pool.query('INSERT INTO access_keys (access_key_id, secret, allowed_operations, description) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)', [
        'SVCOLDBOOTSTRAP',
        sealInFormat1(key, 'old-bootstrap-secret-0123456789abcdef'),
        ['*'],
        'bootstrap key from SVC_BOOTSTRAP_ACCESS_KEY_ID',
        'SVCCREATED',
        sealInFormat1(key, 'created-key-secret-0123456789abcdef'),
        ['ListWarehouseReplications'],
        'made by svc keys create',
      ]);
      await migrate(pool);
    });

    it('still opens every old row, and sealing again moves each to format 2 under the key id, bound to its row', async () => {
      const replications = new ReplicationRepository(pool, box);
      const keys = new AccessKeyRepository(pool, box);
      expect((await replications.get(oldReplicationId))?.config).toEqual(config);
      expect(await keys.find('SVCCREATED')).toEqual({ secretKey: 'created-key-secret-0123456789abcdef', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' });

      expect(await resealStoredSecrets(pool, box)).toEqual([
        { column: 'replications.secrets', opened: 1, resealed: 1 },
        { column: 'access_keys.secret', opened: 2, resealed: 2 },
        { column: 'access_keys.previous_secret', opened: 0, resealed: 0 },
        { column: 'alert_targets.secrets', opened: 0, resealed: 0 },
      ]);
      for (const sealed of [await replicationSecretsOf(pool, oldReplicationId), await accessKeySecretOf(pool, 'SVCCREATED')]) {
        expect(sealed[0]).toBe(2);
        expect(sealed.subarray(1, 9).toString('hex')).toBe(masterKeyId(key));
      }
      expect((await replications.get(oldReplicationId))?.config).toEqual(config);
      expect(await keys.find('SVCCREATED')).toEqual({ secretKey: 'created-key-secret-0123456789abcdef', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' });
      // Nothing is due any more: a second start seals nothing again.
      expect(await resealStoredSecrets(pool, box)).toEqual([
        { column: 'replications.secrets', opened: 0, resealed: 0 },
        { column: 'access_keys.secret', opened: 0, resealed: 0 },
        { column: 'access_keys.previous_secret', opened: 0, resealed: 0 },
        { column: 'alert_targets.secrets', opened: 0, resealed: 0 },
      ]);
    });

    it('replaces the earlier bootstrap key when SVC_BOOTSTRAP_ACCESS_KEY_ID changes, keeping created keys', async () => {
      const keys = new AccessKeyRepository(pool, box);
      await keys.upsertBootstrap('SVCOLDBOOTSTRAP', 'old-bootstrap-secret-rotated-0123456789');
      expect(await keys.find('SVCOLDBOOTSTRAP')).toEqual({ secretKey: 'old-bootstrap-secret-rotated-0123456789', allowedOperations: ['*'], replicationScope: 'All' });

      await keys.upsertBootstrap('SVCNEWBOOTSTRAP', 'new-bootstrap-secret-0123456789abcdef');
      expect(await keys.find('SVCOLDBOOTSTRAP')).toBeNull();
      expect(await keys.find('SVCNEWBOOTSTRAP')).toEqual({ secretKey: 'new-bootstrap-secret-0123456789abcdef', allowedOperations: ['*'], replicationScope: 'All' });
      expect(await keys.find('SVCCREATED')).toEqual({ secretKey: 'created-key-secret-0123456789abcdef', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' });

      await keys.create({ accessKeyId: 'SVCLATER', secretKey: 'later-key-secret-0123456789abcdef', allowedOperations: ['*'], replicationScope: 'Own', description: 'admin' });
      await keys.upsertBootstrap('SVCTHIRDBOOTSTRAP', 'third-bootstrap-secret-0123456789abcdef');
      expect(await keys.find('SVCNEWBOOTSTRAP')).toBeNull();
      expect(await keys.find('SVCLATER')).not.toBeNull();
    });
  });

  describe('master key rotation', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    let replicationId = '';

    beforeEach(async () => {
      await migrate(pool);
      const underOldKey = new SecretBox(oldKey);
      replicationId = (await new ReplicationRepository(pool, underOldKey).insert({ status: 'Running', config }, author)).replicationId;
      await new AlertTargetRepository(pool, underOldKey).put({ name: 'ops', spec: OPS_WEBHOOK, alertKinds: null, replicationIds: null }, 24);
      await new AccessKeyRepository(pool, underOldKey).create({
        accessKeyId: 'SVCROTATED',
        secretKey: 'rotated-key-secret-0123456789abcdef',
        allowedOperations: ['*'],
        replicationScope: 'Own',
        description: '',
      });
    });

    it('seals everything again under the new key, after which the old key can be dropped', async () => {
      const rotating = new SecretBox(newKey, [oldKey]);
      expect(await resealStoredSecrets(pool, rotating, { openAll: true })).toEqual([
        { column: 'replications.secrets', opened: 1, resealed: 1 },
        { column: 'access_keys.secret', opened: 1, resealed: 1 },
        { column: 'access_keys.previous_secret', opened: 0, resealed: 0 },
        { column: 'alert_targets.secrets', opened: 1, resealed: 1 },
      ]);
      const newKeyAlone = new SecretBox(newKey);
      expect((await new AlertTargetRepository(pool, newKeyAlone).get('ops'))?.spec).toEqual(OPS_WEBHOOK);
      expect((await new ReplicationRepository(pool, newKeyAlone).get(replicationId))?.config).toEqual(config);
      expect(await new AccessKeyRepository(pool, newKeyAlone).find('SVCROTATED')).toMatchObject({ secretKey: 'rotated-key-secret-0123456789abcdef' });
      await expect(new ReplicationRepository(pool, new SecretBox(oldKey)).get(replicationId)).rejects.toThrow(`master key id ${masterKeyId(newKey)}`);
    });

    it('names the missing key id when the previous key is not given, and seals nothing again', async () => {
      const before = await replicationSecretsOf(pool, replicationId);
      const withoutPrevious = new SecretBox(newKey);
      const failure = await resealStoredSecrets(pool, withoutPrevious).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ResealError);
      expect((failure as ResealError).missingKeyIds).toEqual([masterKeyId(oldKey)]);
      expect((failure as Error).message).toContain(`3 sealed value(s) cannot be opened, nothing was re-sealed`);
      expect((failure as Error).message).toContain('alert_targets.secrets of ops is under master key id');
      expect((failure as Error).message).toContain(`replications.secrets of ${replicationId} is under master key id ${masterKeyId(oldKey)}`);
      expect((failure as Error).message).not.toContain(oldKey.toString('hex'));
      expect((await replicationSecretsOf(pool, replicationId)).equals(before)).toBe(true);
      await expect(new ReplicationRepository(pool, withoutPrevious).get(replicationId)).rejects.toThrow(`master key id ${masterKeyId(oldKey)}, which is not configured`);
    });
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import type { ReplicationConfig } from '@svc/contracts';
import { ExternalIdIssuer, SecretBox } from '@svc/crypto';
import { createTempDatabase, sampleReplicationConfig } from '@svc/testing';
import { AccessKeyRepository, type NewAccessKey } from './access-key-repository';
import { AlertRepository } from './alert-repository';
import { quoteIdentifier } from './control-database';
import { ensureDatabase } from './ensure-database';
import { issueMissingExternalIds } from './external-id-backfill';
import { migrate, type MigrationReport } from './migrate';
import { MIGRATIONS } from './migrations';
import { PipelineStateRepository } from './pipeline-state-repository';
import { ReplicationRepository } from './replication-repository';
import { accessKeySecretAt, replicationSecretsAt } from './secret-locations';
import { ServiceConfigurationRepository } from './service-configuration-repository';
import { TableStateRepository } from './table-state-repository';

const SERVER_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432';
const databaseName = `svc_store_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const databaseUrl = `${SERVER_URL}/${databaseName}`;

const SECRETS = ['src-pw-7d1e', 'stg-pw-91ab', 'wh-secret-key-5c2f', 'wh-password-0e44'];
const config = sampleReplicationConfig({
  source: { connectionString: `postgres://u:${SECRETS[0]}@h/app` },
  staging: { connectionString: `Server=s;User Id=u;Password=${SECRETS[1]}`, encryptDataInTransit: true },
  warehouse: { secretKey: SECRETS[2], password: SECRETS[3] },
});
const author = { requestId: 'req-1', accessKeyId: 'SVCTESTKEY' };

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('registry store against PostgreSQL', () => {
  let pool: Pool;
  const box = new SecretBox(randomBytes(32));
  // What two instances starting at the same moment did: each ensured the database and migrated.
  let ensured: { created: boolean }[];
  let migrated: MigrationReport[];

  beforeAll(async () => {
    ensured = await Promise.all([ensureDatabase(databaseUrl), ensureDatabase(databaseUrl)]);
    pool = new Pool({ connectionString: databaseUrl, max: 6 });
    const otherPool = new Pool({ connectionString: databaseUrl, max: 2 });
    try {
      migrated = await Promise.all([migrate(pool), migrate(otherPool)]);
    } finally {
      await otherPool.end();
    }
  });

  afterAll(async () => {
    await pool?.end();
    await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseName)} WITH (FORCE)`));
  });

  it('creates the database once when two instances start together, and finds it afterwards', async () => {
    expect(ensured.filter((result) => result.created)).toHaveLength(1);
    expect(await ensureDatabase(databaseUrl)).toEqual({ created: false });
  });

  it('applies each migration once, even when two instances migrate at the same time', async () => {
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(migrated.flatMap((report) => report.applied).sort((a, b) => a - b)).toEqual(versions);
    expect((await migrate(pool)).applied).toEqual([]);
    const recorded = await pool.query<{ version: number }>('SELECT version FROM svc_schema_migrations ORDER BY version');
    expect(recorded.rows.map((row) => row.version)).toEqual(versions);
  });

  describe('replications', () => {
    let replications: ReplicationRepository;
    beforeAll(() => {
      replications = new ReplicationRepository(pool, box);
    });

    it('stores a replication with its secrets sealed and reads it back whole', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      expect(stored).toMatchObject({ status: 'Running', version: 1, lastError: null, config });
      expect(await replications.get(stored.replicationId)).toEqual(stored);

      const raw = await pool.query<Record<string, unknown>>('SELECT * FROM replications WHERE id = $1', [stored.replicationId]);
      const rawText = JSON.stringify(raw.rows[0]);
      const rawSecrets = (raw.rows[0]['secrets'] as Buffer).toString('latin1');
      for (const secret of SECRETS) {
        expect(rawText).not.toContain(secret);
        expect(rawSecrets).not.toContain(secret);
      }
      const history = await pool.query<Record<string, unknown>>('SELECT * FROM replication_history WHERE replication_id = $1', [
        stored.replicationId,
      ]);
      expect(history.rows).toHaveLength(1);
      for (const secret of SECRETS) expect(JSON.stringify(history.rows)).not.toContain(secret);
    });

    it('records the creating key as owner, and lists by owner (issue 19)', async () => {
      const mine = await replications.insert({ status: 'Running', config }, { requestId: 'r', accessKeyId: 'SVCOWNERA' });
      await replications.insert({ status: 'Running', config }, { requestId: 'r', accessKeyId: 'SVCOWNERB' });
      expect(mine.ownerAccessKeyId).toBe('SVCOWNERA');
      expect(await replications.ownerOf(mine.replicationId)).toBe('SVCOWNERA');
      expect(await replications.ownerOf(randomUUID())).toBeUndefined();
      expect((await replications.list('SVCOWNERA')).map((row) => row.replicationId)).toEqual([mine.replicationId]);
      expect((await replications.list()).length).toBeGreaterThan(1);
    });

    it('gives existing replications to the key that created them, and keeps admin keys on every replication, when upgrading', async () => {
      const database = await createTempDatabase('svc_registry_owner_upgrade');
      const upgraded = new Pool({ connectionString: database.url });
      try {
        await migrate(upgraded, MIGRATIONS.filter((migration) => migration.version < 7));
        const id = randomUUID();
        await upgraded.query(`INSERT INTO replications (id, name, status, config, secrets) VALUES ($1, 'old', 'Running', '{}', $2)`, [id, box.seal('{}', replicationSecretsAt(id))]);
        await upgraded.query(`INSERT INTO replication_history (replication_id, version, request_id, access_key_id, changed_fields, masked_values) VALUES ($1, 1, 'r', 'SVCCREATOR', '{}', '{}'), ($1, 2, 'r', 'SVCALTERER', '{}', '{}')`, [id]);
        await upgraded.query(`INSERT INTO access_keys (access_key_id, secret, allowed_operations) VALUES ('SVCADMINOLD', $1, '{*}'), ('SVCREADEROLD', $2, '{ListWarehouseReplications}')`, [box.seal('s', accessKeySecretAt('SVCADMINOLD')), box.seal('s', accessKeySecretAt('SVCREADEROLD'))]);
        await migrate(upgraded);
        const after = new ReplicationRepository(upgraded, box);
        expect(await after.ownerOf(id)).toBe('SVCCREATOR');
        const upgradedKeys = new AccessKeyRepository(upgraded, box);
        expect(await upgradedKeys.scopeOf('SVCADMINOLD')).toBe('All');
        expect(await upgradedKeys.scopeOf('SVCREADEROLD')).toBe('Own');
      } finally {
        await upgraded.end();
        await database.drop();
      }
    });

    it('issues an ExternalId to IAMRole replications stored without one, once, for their owner (issue 19)', async () => {
      const issuer = new ExternalIdIssuer(randomBytes(32));
      const iamRole = sampleReplicationConfig({ warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'Legacy' } });
      delete iamRole.warehouse.accessKey;
      delete iamRole.warehouse.secretKey;
      const owned = await replications.insert({ status: 'Running', config: iamRole }, { requestId: 'r', accessKeyId: 'SVCLEGACYOWNER' });
      const unowned = await replications.insert({ status: 'Running', config: iamRole }, author);
      await pool.query('UPDATE replications SET owner_access_key_id = NULL WHERE id = $1', [unowned.replicationId]);
      const accessKey = await replications.insert({ status: 'Running', config }, author);
      const kept = await replications.insert({ status: 'Running', config: { ...iamRole, warehouse: { ...iamRole.warehouse, externalId: 'svc-already-issued' } } }, author);

      expect(await issueMissingExternalIds(pool, issuer)).toBeGreaterThanOrEqual(2);
      expect(await issueMissingExternalIds(pool, issuer)).toBe(0);

      const externalIdOf = async (id: string) => (await replications.get(id))?.config.warehouse.externalId;
      expect(await externalIdOf(owned.replicationId)).toBe(issuer.issue({ ownerAccessKeyId: 'SVCLEGACYOWNER', accountId: '123456789012', roleName: 'Legacy' }));
      expect(await externalIdOf(unowned.replicationId)).toBe(issuer.issue({ ownerAccessKeyId: unowned.replicationId, accountId: '123456789012', roleName: 'Legacy' }));
      expect(await externalIdOf(accessKey.replicationId)).toBeUndefined();
      expect(await externalIdOf(kept.replicationId)).toBe('svc-already-issued');
      expect((await replications.get(owned.replicationId))?.version).toBe(1);
    });

    it('cannot open the secrets under another master key', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      const otherKey = new ReplicationRepository(pool, new SecretBox(randomBytes(32)));
      await expect(otherKey.get(stored.replicationId)).rejects.toThrow('which is not configured');
    });

    it('answers null/false for unknown and malformed ids', async () => {
      expect(await replications.get(randomUUID())).toBeNull();
      expect(await replications.get('not-a-uuid')).toBeNull();
      expect(await replications.delete(randomUUID())).toBe(false);
      expect(await replications.setStatus('nope', 'Failed', 'x')).toBe(false);
    });

    it('updates with an optimistic version check and records masked history', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      const next: ReplicationConfig = {
        ...config,
        dataReplication: false,
        warehouse: { ...config.warehouse, password: 'new-wh-password-8f', bucketName: 'other-bucket' },
      };
      const change = {
        config: next,
        status: 'Stopped' as const,
        lastError: null,
        changedFields: ['dataReplication', 'warehouse.bucketName', 'warehouse.password'],
      };
      const updated = await replications.update(stored.replicationId, 1, change, { requestId: 'req-2', accessKeyId: 'SVCOTHER' });
      expect(updated).toMatchObject({ version: 2, status: 'Stopped', config: next });
      expect(updated!.updatedAt.getTime()).toBeGreaterThanOrEqual(stored.updatedAt.getTime());

      // A writer that read version 1 loses.
      expect(await replications.update(stored.replicationId, 1, change, author)).toBeNull();

      const history = await replications.history(stored.replicationId);
      expect(history.map((entry) => entry.version)).toEqual([1, 2]);
      expect(history[0].changedFields).toContain('warehouse.bucketName');
      expect(history[1]).toMatchObject({
        requestId: 'req-2',
        accessKeyId: 'SVCOTHER',
        changedFields: ['dataReplication', 'warehouse.bucketName', 'warehouse.password'],
        maskedValues: { dataReplication: false, 'warehouse.bucketName': 'other-bucket', 'warehouse.password': '********' },
      });
      expect(JSON.stringify(history)).not.toContain('new-wh-password-8f');
    });

    it('changes status without a new configuration version', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      expect(await replications.setStatus(stored.replicationId, 'Failed', 'source unreachable')).toBe(true);
      expect(await replications.get(stored.replicationId)).toMatchObject({ status: 'Failed', lastError: 'source unreachable', version: 1 });
    });

    it('lists id, name, status and the data replication flag without secrets', async () => {
      const stopped = await replications.insert({ status: 'Stopped', config: { ...config, replicationName: 'stopped-one', dataReplication: false } }, author);
      const listing = await replications.list();
      expect(listing).toContainEqual({ replicationId: stopped.replicationId, replicationName: 'stopped-one', status: 'Stopped', dataReplication: false });
      expect(listing.length).toBeGreaterThanOrEqual(2);
    });

    it('deletes a replication with all its state', async () => {
      const stored = await replications.insert({ status: 'Running', config }, author);
      const tables = new TableStateRepository(pool);
      const alerts = new AlertRepository(pool);
      const pipeline = new PipelineStateRepository(pool);
      await pipeline.registerTables(stored.replicationId, 1, [{ tableName: '[dbo].[a]', tracked: true, rowsEstimated: 10 }]);
      expect(await pipeline.claim(stored.replicationId, '[dbo].[a]', randomUUID(), 'seed', new Date())).toBe(1);
      expect(await tables.listByReplication(stored.replicationId)).toEqual([expect.objectContaining({ name: '[dbo].[a]', phase: 'Seeding' })]);
      await alerts.record({ replicationId: stored.replicationId, kind: 'Reseed', message: 'reseeded' });

      expect(await replications.delete(stored.replicationId)).toBe(true);
      expect(await replications.get(stored.replicationId)).toBeNull();
      expect(await replications.history(stored.replicationId)).toEqual([]);
      expect(await tables.listByReplication(stored.replicationId)).toEqual([]);
      expect(await alerts.listByReplication(stored.replicationId)).toEqual([]);
      expect(await replications.delete(stored.replicationId)).toBe(false);
    });
  });

  describe('table states and alerts', () => {
    it('lists table states as the pipeline moved them, and alerts of one replication', async () => {
      const { replicationId } = await new ReplicationRepository(pool, box).insert({ status: 'Running', config }, author);
      const tables = new TableStateRepository(pool);
      const pipeline = new PipelineStateRepository(pool);
      await pipeline.registerTables(replicationId, 1, [
        { tableName: '[dbo].[b]', tracked: true, rowsEstimated: 1000 },
        { tableName: '[dbo].[a]', tracked: true, rowsEstimated: 1000 },
      ]);
      const seededAt = new Date(Date.UTC(2030, 0, 1, 0, 0, 0));
      const cycleAt = new Date(Date.UTC(2030, 0, 1, 0, 1, 0));
      const seed = randomUUID();
      await pipeline.claim(replicationId, '[dbo].[a]', seed, 'seed', seededAt);
      expect(await pipeline.completeSeed(replicationId, '[dbo].[a]', seed, '40', 1000, seededAt)).toBe(true);
      const cycle = randomUUID();
      await pipeline.claim(replicationId, '[dbo].[a]', cycle, 'changes', cycleAt);
      expect(await pipeline.completeChanges(replicationId, '[dbo].[a]', cycle, '42', 0, 1.5, cycleAt)).not.toBeNull();
      const base = { rowsSeeded: 0, rowsEstimated: 1000, lastVersion: null, lagSeconds: null, lastError: null };
      const runtime = { lastErrorDetail: null, lastCycleAt: null, nextAttemptAt: null, ctTimeoutLevel: 0, workStartedAt: null, lastProgressAt: null };
      const cycled = { lastCycleAt: cycleAt.toISOString(), lastProgressAt: cycleAt.toISOString() };
      expect(await tables.listByReplication(replicationId)).toEqual([
        { ...base, ...runtime, ...cycled, name: '[dbo].[a]', phase: 'Tracking', rowsSeeded: 1000, lastVersion: '42', lagSeconds: 1.5 },
        { ...base, ...runtime, name: '[dbo].[b]', phase: 'Pending' },
      ]);

      expect((await tables.listAll()).get(replicationId)).toEqual(await tables.listByReplication(replicationId));

      const alerts = new AlertRepository(pool);
      const activeOf = async () => (await alerts.activeCounts()).filter((count) => count.replicationId === replicationId);
      const first = await alerts.record({ replicationId, kind: 'SchemaChange', message: 'column added' });
      expect(first).toMatchObject({ replicationId, kind: 'SchemaChange', message: 'column added', state: 'Active' });
      expect(first.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(await alerts.listByReplication(replicationId)).toEqual([first]);
      const reseed = await alerts.record({ replicationId, kind: 'Reseed', message: 'reseeding' });
      await alerts.record({ replicationId, kind: 'Reseed', message: 'reseeding again' });
      const failure = await alerts.record({ replicationId, kind: 'Failure', message: '[dbo].[a]: failed', tableName: '[dbo].[a]' });
      await alerts.record({ replicationId, kind: 'Failure', message: '[dbo].[b]: failed', tableName: '[dbo].[b]' });
      expect(await activeOf()).toEqual([
        { replicationId, kind: 'Failure', count: 2 },
        { replicationId, kind: 'Reseed', count: 2 },
        { replicationId, kind: 'SchemaChange', count: 1 },
      ]);

      // Issue 40: acknowledged (some, then all), and resolved when the condition of one table ends.
      const at = new Date();
      expect(await alerts.acknowledge(replicationId, [reseed.alertId], 'SVCOPERATOR', at)).toBe(1);
      const ended = [
        { kind: 'Failure', tableName: '[dbo].[a]' },
        { kind: 'RetentionDanger', tableName: '[dbo].[a]' },
        { kind: 'Failure', tableName: null },
      ] as const;
      expect(await alerts.resolve(replicationId, ended, 'the table works again', at)).toBe(1);
      expect(await activeOf()).toEqual([
        { replicationId, kind: 'Failure', count: 1 },
        { replicationId, kind: 'Reseed', count: 1 },
        { replicationId, kind: 'SchemaChange', count: 1 },
      ]);
      const listed = await alerts.listByReplication(replicationId);
      expect(listed.find((alert) => alert.alertId === reseed.alertId)).toMatchObject({ state: 'Acknowledged', acknowledgedBy: 'SVCOPERATOR', acknowledgedAt: at.toISOString() });
      expect(listed.find((alert) => alert.alertId === failure.alertId)).toMatchObject({ state: 'Resolved', resolution: 'the table works again', tableName: '[dbo].[a]' });
      expect(await alerts.acknowledge(replicationId, null, 'SVCOPERATOR', at)).toBe(3);
      expect(await activeOf()).toEqual([]);
      expect(await alerts.acknowledge(replicationId, null, 'SVCOPERATOR', at)).toBe(0);
    });
  });

  describe('access keys', () => {
    it('stops keys stored before issue 36 whose creator is disabled, expired or gone, and caps their expiry at their creators\' (issue 36)', async () => {
      const database = await createTempDatabase('svc_registry_key_chain_upgrade');
      const upgraded = new Pool({ connectionString: database.url });
      try {
        await migrate(upgraded, MIGRATIONS.filter((migration) => migration.version <= 13));
        const soon = new Date(Date.now() + 60_000);
        const rows: Array<[string, string | null, boolean, Date | null]> = [
          ['SVCROOTOK', null, false, null],
          ['SVCROOTOFF', null, true, null],
          ['SVCROOTSOON', null, false, soon],
          ['SVCUNDEROK', 'SVCROOTOK', false, null],
          ['SVCUNDEROFF', 'SVCROOTOFF', false, null],
          ['SVCUNDERSOON', 'SVCROOTSOON', false, null],
          ['SVCORPHAN', 'SVCDELETEDLONGAGO', false, null],
          ['SVCGRANDCHILD', 'SVCUNDEROFF', false, null],
        ];
        for (const [id, createdBy, disabled, expiresAt] of rows) {
          await upgraded.query(
            `INSERT INTO access_keys (access_key_id, secret, allowed_operations, replication_scope, created_by_access_key_id, disabled, expires_at) VALUES ($1, $2, '{ListWarehouseReplications}', 'Own', $3, $4, $5)`,
            [id, box.seal(`secret-${id}`, accessKeySecretAt(id)), createdBy, disabled, expiresAt],
          );
        }
        await migrate(upgraded);
        const keys = new AccessKeyRepository(upgraded, box);
        expect(await keys.scopeOf('SVCUNDEROK')).toBe('Own');
        expect((await keys.find('SVCUNDEROK'))?.secretKey).toBe('secret-SVCUNDEROK');
        for (const stopped of ['SVCUNDEROFF', 'SVCORPHAN', 'SVCGRANDCHILD']) {
          expect({ stopped, scope: await keys.scopeOf(stopped), found: await keys.find(stopped), details: await keys.mayReadErrorDetails(stopped) }).toEqual({
            stopped,
            scope: null,
            found: null,
            details: false,
          });
        }
        expect(await keys.get('SVCUNDERSOON')).toMatchObject({ expiresAt: null });
        expect((await keys.list()).find((key) => key.accessKeyId === 'SVCUNDERSOON')).toMatchObject({ effective: { disabled: false, expiresAt: soon } });
        expect((await keys.list()).find((key) => key.accessKeyId === 'SVCGRANDCHILD')).toMatchObject({ effective: { disabled: true } });
        // Who disabled it is not known: taken as an All key, so an Own key cannot enable it again.
        expect(await keys.get('SVCROOTOFF')).toMatchObject({ disabled: true, disabledBy: { accessKeyId: null, width: 'All' } });
      } finally {
        await upgraded.end();
        await database.drop();
      }
    });

    it('disables, enables, expires, rotates with overlap and deletes a key (issue 19)', async () => {
      const keys = new AccessKeyRepository(pool, box);
      await keys.create({ accessKeyId: 'SVCLIFECYCLE', secretKey: 'first-secret-of-the-lifecycle-key', allowedOperations: ['*'], replicationScope: 'Own', description: 'lc' });
      const free = { kind: 'operator' } as const;
      expect(await keys.change('SVCLIFECYCLE', { kind: 'status', disabled: true }, free)).toBe('changed');
      expect(await keys.find('SVCLIFECYCLE')).toBeNull();
      // Its signature can still be checked, so that its holder is told it is disabled (issue 40).
      expect(await keys.find('SVCLIFECYCLE', { withStopped: true })).toMatchObject({ secretKey: 'first-secret-of-the-lifecycle-key', stopped: 'Disabled' });
      expect(await keys.scopeOf('SVCLIFECYCLE')).toBeNull();
      expect((await keys.list()).find((key) => key.accessKeyId === 'SVCLIFECYCLE')).toMatchObject({ disabled: true, description: 'lc' });
      await keys.change('SVCLIFECYCLE', { kind: 'status', disabled: false }, free);
      expect(await keys.scopeOf('SVCLIFECYCLE')).toBe('Own');

      await keys.change('SVCLIFECYCLE', { kind: 'expiry', expiresAt: new Date(Date.now() - 1000) }, free);
      expect(await keys.find('SVCLIFECYCLE')).toBeNull();
      expect((await keys.find('SVCLIFECYCLE', { withStopped: true }))?.stopped).toBe('Expired');
      await keys.change('SVCLIFECYCLE', { kind: 'expiry', expiresAt: null }, free);

      expect(await keys.rotate('SVCLIFECYCLE', 'second-secret-of-the-lifecycle-key', new Date(Date.now() + 60_000))).toBe(true);
      expect(await keys.find('SVCLIFECYCLE')).toMatchObject({ secretKey: 'second-secret-of-the-lifecycle-key', previousSecretKey: 'first-secret-of-the-lifecycle-key' });
      const raw = await pool.query<{ previous_secret: Buffer }>("SELECT previous_secret FROM access_keys WHERE access_key_id = 'SVCLIFECYCLE'");
      expect(raw.rows[0]?.previous_secret.toString('latin1')).not.toContain('first-secret');
      await keys.rotate('SVCLIFECYCLE', 'third-secret-of-the-lifecycle-key', new Date(Date.now() - 1));
      expect(await keys.find('SVCLIFECYCLE')).toEqual({ secretKey: 'third-secret-of-the-lifecycle-key', allowedOperations: ['*'], replicationScope: 'Own' });

      expect(await keys.change('SVCLIFECYCLE', { kind: 'delete' }, free)).toBe('changed');
      expect(await keys.find('SVCLIFECYCLE')).toBeNull();
      expect(await keys.change('SVCLIFECYCLE', { kind: 'delete' }, free)).toBe('missing');
      expect(await keys.rotate('SVCLIFECYCLE', 'x', new Date())).toBe(false);
    });

    it('keeps one usable All key for a key actor: the last one is neither disabled, expired nor deleted, and two such changes at once leave one (issue 19)', async () => {
      const keys = new AccessKeyRepository(pool, box);
      // Other tests' All keys step aside meanwhile, so that these two are the only usable ones.
      const others = await pool.query<{ access_key_id: string }>("UPDATE access_keys SET disabled = true WHERE replication_scope = 'All' AND NOT disabled RETURNING access_key_id");
      await keys.create({ accessKeyId: 'SVCALLCREATOR', secretKey: 's', allowedOperations: ['*'], replicationScope: 'Own', description: '' });
      const guarded = { kind: 'key', accessKeyId: 'SVCALLCREATOR' } as const;
      const allKey = (id: string) => ({ accessKeyId: id, secretKey: `secret-${id}`, allowedOperations: ['*'], replicationScope: 'All' as const, description: '', createdBy: 'SVCALLCREATOR' });
      await keys.create(allKey('SVCALLONE'));
      await keys.create(allKey('SVCALLTWO'));
      expect(await keys.get('SVCALLONE')).toMatchObject({ createdBy: 'SVCALLCREATOR', disabled: false });
      const both = await Promise.all([
        keys.change('SVCALLONE', { kind: 'status', disabled: true }, guarded),
        keys.change('SVCALLTWO', { kind: 'delete' }, guarded),
      ]);
      const lastAll = { rule: 'lastAllKey', withCreated: false };
      expect(both).toContainEqual('changed');
      expect(both).toContainEqual(lastAll);
      const survivor = both[0] === 'changed' ? 'SVCALLTWO' : 'SVCALLONE';
      expect(await keys.change(survivor, { kind: 'expiry', expiresAt: new Date(Date.now() + 60_000) }, guarded)).toEqual(lastAll);
      expect(await keys.change(survivor, { kind: 'expiry', expiresAt: null }, guarded)).toBe('changed');
      // Its creator takes it out too: the keys created under a key count with it (issue 36).
      expect(await keys.change('SVCALLCREATOR', { kind: 'status', disabled: true }, { kind: 'key', accessKeyId: survivor })).toEqual({ rule: 'lastAllKey', withCreated: true });
      expect(await keys.change(survivor, { kind: 'status', disabled: true }, { kind: 'operator' })).toBe('changed');
      await pool.query('UPDATE access_keys SET disabled = false WHERE access_key_id = ANY($1)', [others.rows.map((row) => row.access_key_id)]);
    });

    describe('chains of creators (issue 36)', () => {
      const key = (accessKeyId: string, rest: Partial<NewAccessKey> = {}): NewAccessKey => ({
        accessKeyId,
        secretKey: `secret-${accessKeyId}`,
        allowedOperations: ['ListWarehouseReplications'],
        replicationScope: 'Own',
        description: '',
        ...rest,
      });
      const operator = { kind: 'operator' } as const;
      const by = (accessKeyId: string) => ({ kind: 'key', accessKeyId }) as const;

      it('stops a key while a creator up its chain is disabled or expired, and deletes the keys created under a deleted one', async () => {
        const keys = new AccessKeyRepository(pool, box);
        await keys.create(key('SVCCHAINROOT'));
        await keys.create(key('SVCCHAINMID', { createdBy: 'SVCCHAINROOT' }));
        await keys.create(key('SVCCHAINLEAF', { createdBy: 'SVCCHAINMID' }));
        expect(await keys.find('SVCCHAINLEAF')).toMatchObject({ secretKey: 'secret-SVCCHAINLEAF' });

        await keys.change('SVCCHAINROOT', { kind: 'status', disabled: true }, operator);
        expect([await keys.scopeOf('SVCCHAINLEAF'), await keys.find('SVCCHAINLEAF')]).toEqual([null, null]);
        expect(await keys.get('SVCCHAINLEAF')).toMatchObject({ disabled: false, effective: { disabled: true } });
        await keys.change('SVCCHAINROOT', { kind: 'status', disabled: false }, operator);
        expect(await keys.scopeOf('SVCCHAINLEAF')).toBe('Own');

        const soon = new Date(Date.now() + 60_000);
        await keys.change('SVCCHAINMID', { kind: 'expiry', expiresAt: soon }, operator);
        expect(await keys.get('SVCCHAINLEAF')).toMatchObject({ expiresAt: null, effective: { disabled: false, expiresAt: soon } });
        await keys.change('SVCCHAINMID', { kind: 'expiry', expiresAt: new Date(Date.now() - 1000) }, operator);
        expect(await keys.scopeOf('SVCCHAINLEAF')).toBeNull();

        expect(await keys.change('SVCCHAINROOT', { kind: 'delete' }, operator)).toBe('changed');
        expect([await keys.get('SVCCHAINMID'), await keys.get('SVCCHAINLEAF')]).toEqual([null, null]);
      });

      it('records who disabled a key and how wide it was: a narrower key neither enables it nor makes the disable its own', async () => {
        const keys = new AccessKeyRepository(pool, box);
        await keys.create(key('SVCWIDEALL', { replicationScope: 'All', allowedOperations: ['*'] }));
        await keys.create(key('SVCWIDEOWN', { allowedOperations: ['*'] }));
        await keys.create(key('SVCWIDECHILD', { createdBy: 'SVCWIDEOWN' }));
        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: true }, by('SVCWIDEALL'))).toBe('changed');
        expect(await keys.get('SVCWIDECHILD')).toMatchObject({ disabled: true, disabledBy: { accessKeyId: 'SVCWIDEALL', width: 'All' } });
        const narrower = { rule: 'disabledByWider', width: 'All' };
        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: false }, by('SVCWIDEOWN'))).toEqual(narrower);
        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: true }, by('SVCWIDEOWN'))).toBe('changed');
        expect(await keys.get('SVCWIDECHILD')).toMatchObject({ disabledBy: { accessKeyId: 'SVCWIDEALL', width: 'All' } });
        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: false }, by('SVCWIDEOWN'))).toEqual(narrower);

        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: true }, operator)).toBe('changed');
        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: false }, by('SVCWIDEALL'))).toEqual({ rule: 'disabledByWider', width: 'Operator' });
        expect(await keys.change('SVCWIDECHILD', { kind: 'status', disabled: false }, operator)).toBe('changed');
        expect(await keys.get('SVCWIDECHILD')).toMatchObject({ disabled: false, disabledBy: null });
      });

      it('gives no key an expiry later than its actor\'s: a key only shortens its own lifetime', async () => {
        const keys = new AccessKeyRepository(pool, box);
        const inAnHour = new Date(Date.now() + 3_600_000);
        await keys.create(key('SVCSHORTLIVED', { expiresAt: inAnHour }));
        await keys.create(key('SVCSHORTCHILD', { createdBy: 'SVCSHORTLIVED', expiresAt: inAnHour }));
        expect(await keys.change('SVCSHORTLIVED', { kind: 'expiry', expiresAt: null }, by('SVCSHORTLIVED'))).toEqual({ rule: 'outlivesActor', actorExpiresAt: inAnHour, own: true });
        expect(await keys.change('SVCSHORTCHILD', { kind: 'expiry', expiresAt: new Date('2099-01-01T00:00:00Z') }, by('SVCSHORTLIVED'))).toEqual({
          rule: 'outlivesActor',
          actorExpiresAt: inAnHour,
          own: false,
        });
        const sooner = new Date(Date.now() + 600_000);
        expect(await keys.change('SVCSHORTLIVED', { kind: 'expiry', expiresAt: sooner }, by('SVCSHORTLIVED'))).toBe('changed');
        expect(await keys.change('SVCSHORTLIVED', { kind: 'expiry', expiresAt: null }, operator)).toBe('changed');
      });

      it('moves the keys a replaced bootstrap key created to the new one, so that they keep working', async () => {
        const database = await createTempDatabase('svc_registry_bootstrap_heirs');
        const own = new Pool({ connectionString: database.url });
        try {
          await migrate(own);
          const keys = new AccessKeyRepository(own, box);
          await keys.upsertBootstrap('SVCBOOTOLD', 'old-secret');
          await keys.create(key('SVCBOOTCHILD', { createdBy: 'SVCBOOTOLD' }));
          await keys.create(key('SVCBOOTNEW', { createdBy: 'SVCBOOTCHILD' }));
          await keys.upsertBootstrap('SVCBOOTNEW', 'new-secret');
          expect(await keys.get('SVCBOOTOLD')).toBeNull();
          expect(await keys.get('SVCBOOTNEW')).toMatchObject({ bootstrap: true, createdBy: null, replicationScope: 'All' });
          expect(await keys.get('SVCBOOTCHILD')).toMatchObject({ createdBy: 'SVCBOOTNEW', effective: { disabled: false } });
          expect(await keys.scopeOf('SVCBOOTCHILD')).toBe('Own');
        } finally {
          await own.end();
          await database.drop();
        }
      });
    });

    it('creates, finds and refuses a duplicate id; the secret is sealed at rest', async () => {
      const keys = new AccessKeyRepository(pool, box);
      const key = { accessKeyId: 'SVCABCDEFGHIJKLMNOPQ', secretKey: 'secret-of-the-key-3b9d', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' as const, description: 'ci' };
      expect(await keys.create(key)).toBe(true);
      expect(await keys.create({ ...key, secretKey: 'another' })).toBe(false);
      expect(await keys.find(key.accessKeyId)).toEqual({ secretKey: key.secretKey, allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' });
      expect(await keys.scopeOf(key.accessKeyId)).toBe('Own');
      expect(await keys.find('SVCUNKNOWN')).toBeNull();

      const raw = await pool.query<{ secret: Buffer }>('SELECT secret FROM access_keys WHERE access_key_id = $1', [key.accessKeyId]);
      expect(raw.rows[0].secret.toString('latin1')).not.toContain(key.secretKey);
    });

    it('upserts the bootstrap key, replacing a rotated secret', async () => {
      const keys = new AccessKeyRepository(pool, box);
      await keys.upsertBootstrap('SVCBOOTSTRAP', 'first-secret');
      await keys.upsertBootstrap('SVCBOOTSTRAP', 'rotated-secret');
      expect(await keys.find('SVCBOOTSTRAP')).toEqual({ secretKey: 'rotated-secret', allowedOperations: ['*'], replicationScope: 'All' });
    });
  });

  describe('service configuration', () => {
    it('starts with defaults and applies partial updates', async () => {
      const settings = new ServiceConfigurationRepository(pool);
      expect(await settings.get()).toEqual({ serviceStopped: false, serializeReplications: false, parallelDatabaseReplicationsLimit: 0 });
      expect(await settings.update({ serviceStopped: true })).toEqual({
        serviceStopped: true,
        serializeReplications: false,
        parallelDatabaseReplicationsLimit: 0,
      });
      await settings.update({ parallelDatabaseReplicationsLimit: 3, serializeReplications: true });
      expect(await settings.get()).toEqual({ serviceStopped: true, serializeReplications: true, parallelDatabaseReplicationsLimit: 3 });
      await expect(settings.update({ parallelDatabaseReplicationsLimit: -1 })).rejects.toThrow();
    });
  });
});

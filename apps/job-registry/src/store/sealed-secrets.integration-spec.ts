import { spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Pool } from 'pg';
import { Subjects, type RpcReply } from '@svc/contracts';
import { masterKeyId } from '@svc/crypto';
import { NatsRequester, connectNats } from '@svc/messaging';
import { MIGRATIONS, migrate, splitSecrets } from '@svc/registry-store';
import { TEST_WORKER_KEY, createTempDatabase, sampleReplicationConfig, signedCallFor, startTestNats, waitUntil, type TempDatabase, type TestNats } from '@svc/testing';
import { readRegistryConfig } from '../config/registry-config';
import { createRegistryApp } from '../registry-app';

const repoRoot = resolve(__dirname, '..', '..', '..', '..');
const rotateCommand = join(repoRoot, 'dist/apps/job-registry/src/rotate-master-key.js');
const registryMain = join(repoRoot, 'dist/apps/job-registry/src/main.js');
const config = sampleReplicationConfig();
/** The bootstrap secret registryEnv gives a key id. */
const bootstrapSecretOf = (keyId: string) => `${keyId.toLowerCase()}-secret-0123456789abcdef`;
/** What the registry answers the gateway's check of a call signed with this key. */
const signatureCheck = (accessKeyId: string, secretKey: string) => ({
  operation: 'ListWarehouseReplications' as const,
  signed: signedCallFor('ListWarehouseReplications', '{}', { accessKeyId, secretKey }),
});

/** What SecretBox wrote before key ids and associated data (format 1). */
function sealInFormat1(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), ciphertext]);
}

describe('job-registry: sealed secrets across an upgrade and a master key rotation', () => {
  let nats: TestNats;
  let connection: NatsConnection;
  let requester: NatsRequester;
  let control: TempDatabase;
  let pool: Pool;
  let app: INestMicroservice | undefined;
  let replicationId = '';
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  function registryEnv(keys: { current: Buffer; previous?: Buffer[] }, bootstrapKeyId = 'SVCSEALEDADMIN'): Record<string, string> {
    return {
      DATABASE_URL: control.url,
      NATS_URL: nats.url,
      SVC_MASTER_KEY: keys.current.toString('hex'),
      SVC_MASTER_KEY_PREVIOUS: (keys.previous ?? []).map((key) => key.toString('hex')).join(','),
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      SVC_BOOTSTRAP_ACCESS_KEY_ID: bootstrapKeyId,
      SVC_BOOTSTRAP_SECRET_KEY: bootstrapSecretOf(bootstrapKeyId),
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: 'error',
    };
  }

  async function startRegistry(env: Record<string, string>): Promise<void> {
    app = await createRegistryApp(readRegistryConfig(env), { logSink: () => undefined });
    await waitUntil(async () => (await describe()).ok, 10000, 'the registry to answer operations');
  }

  async function stopRegistry(): Promise<void> {
    await app?.close();
    app = undefined;
  }

  function describe(): Promise<RpcReply<unknown>> {
    const payload = { replicationId };
    return requester.request(Subjects.registryOperation, {
      requestId: randomBytes(4).toString('hex'),
      operation: 'DescribeWarehouseReplication',
      payload,
      signed: signedCallFor('DescribeWarehouseReplication', JSON.stringify(payload), { accessKeyId: 'SVCSEALEDADMIN', secretKey: bootstrapSecretOf('SVCSEALEDADMIN') }),
    });
  }

  async function formatsAndKeyIds(): Promise<string[]> {
    const rows = await pool.query<{ value: Buffer }>('SELECT secrets AS value FROM replications UNION ALL SELECT secret FROM access_keys');
    return [...new Set(rows.rows.map((row) => `${row.value[0]}:${row.value[0] === 2 ? row.value.subarray(1, 9).toString('hex') : ''}`))];
  }

  function rotate(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
    return spawnSync(process.execPath, [rotateCommand], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8' });
  }

  beforeAll(async () => {
    nats = await startTestNats();
    connection = await connectNats(nats.url, 'sealed-secrets-integration-test');
    requester = new NatsRequester(connection, 10000);
    control = await createTempDatabase('svc_registry_sealed');
    pool = new Pool({ connectionString: control.url, max: 2 });
    // What the registry left before format 2: schema version 5, format-1 values, under what is now the old key.
    await migrate(
      pool,
      MIGRATIONS.filter((migration) => migration.version <= 5),
    );
    const { publicConfig, secretsJson } = splitSecrets(config);
    const inserted = await pool.query<{ id: string }>("INSERT INTO replications (name, status, config, secrets) VALUES ($1, 'Stopped', $2, $3) RETURNING id", [
      config.replicationName,
      publicConfig,
      sealInFormat1(oldKey, secretsJson),
    ]);
    replicationId = inserted.rows[0]?.id ?? '';
    await pool.query("INSERT INTO access_keys (access_key_id, secret, allowed_operations, description) VALUES ('SVCCREATEDBEFORE', $1, '{ListWarehouseReplications}', 'ci')", [
      sealInFormat1(oldKey, 'created-before-secret-0123456789abcdef'),
    ]);
  });

  afterAll(async () => {
    await stopRegistry();
    await pool?.end();
    await connection?.drain();
    await Promise.allSettled([nats?.stop(), control?.drop()]);
  });

  it('starts on rows of the old format, answers for them, and has sealed them again in format 2 under its key id', async () => {
    await startRegistry(registryEnv({ current: oldKey }));
    expect(await describe()).toMatchObject({ ok: true, value: { replicationId } });
    expect(await formatsAndKeyIds()).toEqual([`2:${masterKeyId(oldKey)}`]);
    await stopRegistry();
  });

  it('refuses to start under a new key without the old one, naming the missing key id and never a key', () => {
    // A process of its own: a start that fails leaves its NATS connection to the process exit.
    const run = spawnSync(process.execPath, [registryMain], { env: { PATH: process.env['PATH'] ?? '', ...registryEnv({ current: newKey }) }, encoding: 'utf8', timeout: 30000 });
    expect(run.status).toBe(1);
    const output = run.stdout + run.stderr;
    expect(output).toContain('job-registry failed to start');
    expect(output).toContain(`master key id(s) ${masterKeyId(oldKey)} not configured: give each such key in SVC_MASTER_KEY_PREVIOUS`);
    expect(output).toContain(`replications.secrets of ${replicationId} is under master key id ${masterKeyId(oldKey)}`);
    for (const key of [oldKey, newKey]) expect(output).not.toContain(key.toString('hex'));
  });

  it('still holds every value under the key that sealed it', async () => {
    expect(await formatsAndKeyIds()).toEqual([`2:${masterKeyId(oldKey)}`]);
  });

  it('rotate-master-key names the missing key id when SVC_MASTER_KEY_PREVIOUS lacks it, and changes nothing', () => {
    const run = rotate({ DATABASE_URL: control.url, SVC_MASTER_KEY: newKey.toString('hex') });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`master key id(s) ${masterKeyId(oldKey)} not configured`);
    expect(run.stderr).not.toContain(oldKey.toString('hex'));
  });

  it('rotate-master-key seals everything again under the new key in one run; the registry then starts without the old key', async () => {
    const run = rotate({ DATABASE_URL: control.url, SVC_MASTER_KEY: newKey.toString('hex'), SVC_MASTER_KEY_PREVIOUS: oldKey.toString('hex') });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('replications.secrets: 1 value(s) opened, 1 sealed again');
    expect(run.stdout).toContain(`Every sealed value is now under SVC_MASTER_KEY (master key id ${masterKeyId(newKey)})`);
    expect(await formatsAndKeyIds()).toEqual([`2:${masterKeyId(newKey)}`]);

    await startRegistry(registryEnv({ current: newKey }));
    expect(await describe()).toMatchObject({ ok: true, value: { replicationId } });
    await stopRegistry();
  });

  it('replaces the bootstrap key when SVC_BOOTSTRAP_ACCESS_KEY_ID changes, keeping keys created meanwhile', async () => {
    await startRegistry(registryEnv({ current: newKey }, 'SVCSEALEDADMIN'));
    await stopRegistry();
    app = await createRegistryApp(readRegistryConfig(registryEnv({ current: newKey }, 'SVCNEXTADMIN')), { logSink: () => undefined });
    const keyIds = await pool.query<{ access_key_id: string }>('SELECT access_key_id FROM access_keys ORDER BY 1');
    expect(keyIds.rows.map((row) => row.access_key_id)).toEqual(['SVCCREATEDBEFORE', 'SVCNEXTADMIN']);
    expect(await requester.request(Subjects.registryCheckSignature, signatureCheck('SVCSEALEDADMIN', bootstrapSecretOf('SVCSEALEDADMIN')))).toMatchObject({ ok: false });
    expect(await requester.request(Subjects.registryCheckSignature, signatureCheck('SVCCREATEDBEFORE', 'created-before-secret-0123456789abcdef'))).toMatchObject({ ok: true });
    await stopRegistry();
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Client } from 'pg';
import {
  ErrorCode,
  Subjects,
  healthSubject,
  type OperationName,
  type OperationRequest,
  type ReplicationDescription,
  type RpcReply,
} from '@svc/contracts';
import { CertificateAuthority, RuntimeConfigSeal, parseMasterKey } from '@svc/crypto';
import { NatsRequester, connectNats } from '@svc/messaging';
import { MIGRATIONS } from '@svc/registry-store';
import {
  TEST_WORKER_KEY,
  createTempDatabase,
  reserveTempDatabase,
  signedCallFor,
  startRecordingPostgresServer,
  startTestNats,
  startTestS3,
  waitUntil,
  type TempDatabase,
  type TestNats,
  type TestS3,
} from '@svc/testing';
import { readRegistryConfig, type RegistryConfig } from './config/registry-config';
import { createRegistryApp } from './registry-app';
import { createRequestTree, type CreateRequestParts } from './testing/requests';

const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
// The server trusts local connections, so these passwords are never checked; they exist to be hidden.
const SECRETS = { source: `src-pw-${suffix}`, staging: `stg-pw-${suffix}`, warehouse: `wh-pw-${suffix}`, bootstrap: `boot-secret-0123456789abcdef-${suffix}` };
const BOOTSTRAP_KEY_ID = `SVCIT${suffix.toUpperCase()}`.slice(0, 20);
// The registry creates its control database itself on first start.
const control = reserveTempDatabase('svc_registry_it');

async function queryControl<T extends object>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: control.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('job-registry over NATS', () => {
  let natsServer: TestNats;
  let s3: TestS3;
  let source: TempDatabase;
  let staging: TempDatabase;
  let warehouse: TempDatabase;
  let parts: CreateRequestParts;
  let unreachable = '';
  let config: RegistryConfig;
  let app: INestMicroservice | undefined;
  let nats: NatsConnection;
  let requester: NatsRequester;
  const logLines: string[] = [];
  let requestCounter = 0;

  async function startApp(): Promise<void> {
    app = await createRegistryApp(config, { logSink: (line) => logLines.push(line) });
    // listen() may resolve before the server has seen the subscriptions: wait until operations are answered.
    await waitUntil(async () => (await operation('ListWarehouseReplications', {})).ok, 10000, 'the registry to answer operations');
  }

  function operation<Op extends OperationName>(op: Op, payload: OperationRequest<Op> | Record<string, unknown>): Promise<RpcReply<unknown>> {
    requestCounter += 1;
    return requester.request(Subjects.registryOperation, {
      requestId: String(requestCounter),
      operation: op,
      payload,
      signed: signedCallFor(op, JSON.stringify(payload), { accessKeyId: BOOTSTRAP_KEY_ID, secretKey: SECRETS.bootstrap }),
    });
  }

  async function ok<T>(reply: Promise<RpcReply<unknown>>): Promise<T> {
    const settled = await reply;
    if (!settled.ok) throw new Error(`expected success, got ${settled.error.code}: ${settled.error.messages.join('; ')}`);
    return settled.value as T;
  }

  async function describeReplication(replicationId: string): Promise<ReplicationDescription> {
    return ok<ReplicationDescription>(operation('DescribeWarehouseReplication', { replicationId }));
  }

  beforeAll(async () => {
    [natsServer, s3, source, staging, warehouse] = await Promise.all([
      startTestNats(),
      startTestS3(),
      createTempDatabase('svc_src_it'),
      createTempDatabase('svc_stg_it'),
      createTempDatabase('svc_wh_it'),
    ]);
    parts = {
      sourceUrl: `postgres://postgres:${SECRETS.source}@127.0.0.1:5432/${source.name}`,
      stagingUrl: `postgres://postgres:${SECRETS.staging}@127.0.0.1:5432/${staging.name}`,
      warehouseUrl: 'postgres://127.0.0.1:5432',
      warehouseDatabase: warehouse.name,
      warehouseUser: 'postgres',
      bucketName: `svc-it-${suffix}`,
      accessKey: s3.accessKeyId,
      secretKey: s3.secretAccessKey,
      warehousePassword: SECRETS.warehouse,
    };
    unreachable = `postgres://postgres:nobody@127.0.0.1:1/${source.name}`;
    config = readRegistryConfig({
      DATABASE_URL: control.url,
      NATS_URL: natsServer.url,
      SVC_MASTER_KEY: randomBytes(32).toString('hex'),
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      ALLOW_LOOPBACK_TARGETS: 'true',
      SVC_BOOTSTRAP_ACCESS_KEY_ID: BOOTSTRAP_KEY_ID,
      SVC_BOOTSTRAP_SECRET_KEY: SECRETS.bootstrap,
      S3_ENDPOINT: s3.endpoint,
      REACHABILITY_TIMEOUT_MS: '8000',
      LOG_LEVEL: 'debug',
    });
    nats = await connectNats(natsServer.url, 'job-registry-integration-test');
    requester = new NatsRequester(nats, 20000);
    await startApp();
  });

  afterAll(async () => {
    await app?.close();
    await nats?.drain();
    await Promise.all([natsServer?.stop(), s3?.stop(), control.drop(), source?.drop(), staging?.drop(), warehouse?.drop()]);
  });

  let replicationId = '';
  let createdKey = { accessKeyId: '', secretKey: '' };

  it('answers its health subject', async () => {
    expect(await requester.request(healthSubject('job-registry'), {})).toMatchObject({ service: 'job-registry', status: 'ok' });
  });

  it('refuses malformed messages on every subject with ValidationFailed', async () => {
    const malformed = { requestId: '', operation: 'Nope', payload: 'x' } as unknown as Parameters<NatsRequester['request']>[1];
    expect(await requester.request(Subjects.registryOperation, malformed as never)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ValidationFailed, messages: expect.arrayContaining(['operation: must name a known operation']) as unknown },
    });
    expect(await requester.request(Subjects.registryCheckSignature, { operation: 'ListAccessKeys' } as never)).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ValidationFailed },
    });
    expect(await requester.request(Subjects.registryCreateAccessKey, { allowedOperations: [] })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ValidationFailed, messages: ['allowedOperations: must be a non-empty list'] },
    });
    expect(await operation('CreateWarehouseReplication', { ...createRequestTree(parts), parallelTablesLimit: 'ten' })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ValidationFailed },
    });
  });

  it('refuses a Create whose source cannot be reached, storing nothing', async () => {
    const reply = await operation('CreateWarehouseReplication', createRequestTree({ ...parts, sourceUrl: unreachable }));
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe(ErrorCode.ValidationFailed);
    // Refused, timed out, unknown host and TLS failures get one text naming the address given (issue 19: no port scanner).
    expect(reply.error.messages).toEqual(['{Source\\ConnectionString}: cannot reach 127.0.0.1:1 (refused, timed out, unknown host or TLS failed)']);
    expect(await queryControl('SELECT id FROM replications')).toEqual([]);
  });

  it("refuses the registry's own control database as Source or Staging, contacting nothing (issue 19)", async () => {
    const controlUrl = control.url.replace('postgres://postgres@', 'postgres://postgres:any@');
    const reply = await operation('CreateWarehouseReplication', createRequestTree({ ...parts, sourceUrl: controlUrl, stagingUrl: controlUrl }));
    expect(reply).toEqual({
      ok: false,
      error: {
        code: ErrorCode.ValidationFailed,
        messages: [
          "{Source\\ConnectionString}: names the replication service's own control database, which no replication may read or write",
          "{Staging\\ConnectionString}: names the replication service's own control database, which no replication may read or write",
        ],
      },
    });
    expect(await queryControl('SELECT id FROM replications')).toEqual([]);
  });

  it('creates a replication after reaching source, staging, warehouse and bucket', async () => {
    const created = await ok<{ replicationId: string; status: string; note: string }>(operation('CreateWarehouseReplication', createRequestTree(parts)));
    // The source has no table yet: the Note says so (issue 38).
    expect(created).toEqual({ replicationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, status: 'Running', note: expect.stringMatching(/^The source has no tables yet/) as unknown });
    replicationId = created.replicationId;
    // The bucket probe wrote and deleted an object in the (created) bucket.
    expect(s3.events.map((event) => `${event.name} ${event.bucket}`)).toEqual(
      expect.arrayContaining([`ObjectCreated:Put ${parts.bucketName}`, `ObjectRemoved:Delete ${parts.bucketName}`]),
    );

    const description = await describeReplication(replicationId);
    expect(description).toMatchObject({ replicationId, replicationName: source.name, status: 'Running', tables: [], alerts: [], lastError: null });
    expect(description.configuration.source.connectionString).toBe(`postgres://postgres:********@127.0.0.1:5432/${source.name}`);
    expect(description.configuration.warehouse).toMatchObject({ password: '********', secretKey: '********', timeoutInMins: 60 });
    expect(JSON.stringify(description)).not.toMatch(new RegExp(`${SECRETS.source}|${SECRETS.staging}|${SECRETS.warehouse}`));

    const [raw] = await queryControl<{ config: unknown; secrets: Buffer }>('SELECT config, secrets FROM replications WHERE id = $1', [replicationId]);
    expect(JSON.stringify(raw?.config)).not.toContain(SECRETS.source);
    expect(raw?.secrets.toString('latin1')).not.toContain(SECRETS.warehouse);
  });

  it('never sends the stored warehouse password to a new server: the Alter must give it again (issue 19)', async () => {
    // A PostgreSQL look-alike that asks for the password in clear text and records every byte it is sent.
    const received: Buffer[] = [];
    const server = createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        // An SSLRequest is answered "no TLS"; a startup message with a request for the password in clear text.
        if (chunk.length === 8 && chunk.readUInt32BE(4) === 80877103) socket.write('N');
        else if (chunk[0] !== 0x70) socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]));
        else socket.destroy();
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const fakeUrl = `postgres://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const redirected = await operation('AlterWarehouseReplication', { replicationId, warehouse: { url: fakeUrl } });
      expect(redirected).toEqual({
        ok: false,
        error: { code: ErrorCode.ValidationFailed, messages: [expect.stringContaining('{Warehouse\\Password}: is required when {Warehouse\\Url} changes') as unknown] },
      });
      expect(received).toEqual([]);
      // Given again, it is the new password that reaches the new server, never the stored one.
      const withPassword = await operation('AlterWarehouseReplication', { replicationId, warehouse: { url: fakeUrl, password: 'new-password-for-new-server' } });
      expect(withPassword.ok).toBe(false);
      const seen = Buffer.concat(received).toString('latin1');
      expect(seen).toContain('new-password-for-new-server');
      expect(seen).not.toContain(SECRETS.warehouse);
    } finally {
      await new Promise((closed) => server.close(closed));
    }
    expect((await describeReplication(replicationId)).configuration.warehouse.url).not.toBe(fakeUrl);
  });

  it("never sends the stored S3 secret key to a Redshift of the caller's: COPY would carry it there, so the Alter must give it again (issue 36)", async () => {
    // A Redshift look-alike of the caller's (TLS, the password asked in clear text, every statement answered) that
    // records every byte it is sent; the caller knows its own password, not the replication's S3 secret key.
    const folder = mkdtempSync(join(tmpdir(), 'svc-registry-it-'));
    const issued = CertificateAuthority.create(folder).issue({ name: 'server', hosts: ['127.0.0.1'] });
    const server = await startRecordingPostgresServer({ tls: { key: readFileSync(issued.keyFile, 'utf8'), cert: readFileSync(issued.certFile, 'utf8') } });
    const callersUrl = `redshift://127.0.0.1:${server.port}?sslmode=require`;
    try {
      const redirected = await operation('AlterWarehouseReplication', { replicationId, warehouse: { url: callersUrl, password: 'the-callers-own-password' } });
      expect(redirected).toEqual({
        ok: false,
        error: {
          code: ErrorCode.ValidationFailed,
          messages: ['{Warehouse\\SecretKey}: is required when {Warehouse\\Url} changes: a stored secret is never sent anywhere but where it was given for'],
        },
      });
      // With the key given again (a wrong one: the caller does not know it), the stored one is nowhere in what was sent.
      await operation('AlterWarehouseReplication', { replicationId, warehouse: { url: callersUrl, password: 'the-callers-own-password', secretKey: 'the-callers-guess' } });
      expect(server.passwords).toEqual(['the-callers-own-password']);
      expect(server.received()).not.toContain(parts.secretKey);
      expect(server.received()).not.toContain(SECRETS.warehouse);
    } finally {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
    const { warehouse: described } = (await describeReplication(replicationId)).configuration;
    expect(described.url).toBe(parts.warehouseUrl);
  });

  it('hands the runtime configuration only to a holder of the worker key, sealed; others get nothing', async () => {
    const seal = new RuntimeConfigSeal(parseMasterKey(TEST_WORKER_KEY));
    const stranger = new RuntimeConfigSeal(randomBytes(32));
    const refused = { ok: false, error: { code: ErrorCode.Forbidden, messages: ['not authorised'] } };
    // No proof, a proof under another key, one for another replication, one an hour old, and an unknown id: all alike.
    expect(await requester.request(Subjects.registryRuntimeConfig, { replicationId } as never)).toEqual(refused);
    expect(await requester.request(Subjects.registryRuntimeConfig, { replicationId, proof: stranger.prove(replicationId) })).toEqual(refused);
    expect(await requester.request(Subjects.registryRuntimeConfig, { replicationId, proof: seal.prove(randomUUID()) })).toEqual(refused);
    expect(await requester.request(Subjects.registryRuntimeConfig, { replicationId, proof: seal.prove(replicationId, new Date(Date.now() - 3600_000)) })).toEqual(refused);
    const unknownId = randomUUID();
    expect(await requester.request(Subjects.registryRuntimeConfig, { replicationId: unknownId, proof: stranger.prove(unknownId) })).toEqual(refused);

    const proof = seal.prove(replicationId);
    const reply = await requester.request(Subjects.registryRuntimeConfig, { replicationId, proof });
    if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply)}`);
    // On the bus: no secret in clear text.
    expect(JSON.stringify(reply)).not.toMatch(new RegExp(`${SECRETS.source}|${SECRETS.staging}|${SECRETS.warehouse}`));
    // Opened by the worker that asked: the secrets it needs.
    const config = JSON.parse(seal.open(reply.value.sealedConfig, replicationId, proof.nonce)) as { source: { connectionString: string }; warehouse: { password: string } };
    expect(config.source.connectionString).toContain(SECRETS.source);
    expect(config.warehouse.password).toBe(SECRETS.warehouse);
    // Not by another request's nonce: a reply captured for one request opens for no other.
    expect(() => seal.open(reply.value.sealedConfig, replicationId, seal.prove(replicationId).nonce)).toThrow('cannot be opened');
  });

  it('lists the replication', async () => {
    expect(await ok(operation('ListWarehouseReplications', {}))).toEqual({
      replications: [{ replicationId, replicationName: source.name, status: 'Running', tableCount: 0, tablesInError: 0 }],
    });
  });

  it('alters settings, and refuses an unreachable new destination keeping the old one', async () => {
    expect(await ok(operation('AlterWarehouseReplication', { replicationId, parallelTablesLimit: '4', replicationName: 'sales', warehouse: { scdType: 'Type2' } }))).toBeNull();
    const altered = await describeReplication(replicationId);
    expect(altered).toMatchObject({ replicationName: 'sales', configuration: { parallelTablesLimit: 4, warehouse: { scdType: 'Type2' } } });

    const refused = await operation('AlterWarehouseReplication', { replicationId, destinationConnectionString: unreachable });
    expect(refused).toMatchObject({ ok: false, error: { code: ErrorCode.ValidationFailed } });
    if (!refused.ok) expect(refused.error.messages).toEqual(['{DestinationConnectionString}: cannot reach 127.0.0.1:1 (refused, timed out, unknown host or TLS failed)']);
    expect((await describeReplication(replicationId)).configuration.staging.connectionString).toBe(
      `postgres://postgres:********@127.0.0.1:5432/${staging.name}`,
    );

    const history = await queryControl<{ version: number; changed_fields: string[] }>(
      'SELECT version, changed_fields FROM replication_history WHERE replication_id = $1 ORDER BY version',
      [replicationId],
    );
    expect(history.map((row) => row.version)).toEqual([1, 2]);
    expect(history[1]?.changed_fields).toEqual(['parallelTablesLimit', 'replicationName', 'warehouse.scdType']);

    const unknown = randomUUID();
    expect(await operation('AlterWarehouseReplication', { replicationId: unknown, parallelTablesLimit: '2' })).toEqual({
      ok: false,
      error: { code: ErrorCode.NotFound, messages: [`{ReplicationId}: replication '${unknown}' does not exist`] },
    });
  });

  it('stops and starts the whole service and one replication', async () => {
    await ok(operation('StopReplicationService', {}));
    expect((await describeReplication(replicationId)).status).toBe('Stopped');
    await ok(operation('StartReplication', {}));
    expect((await describeReplication(replicationId)).status).toBe('Running');

    await ok(operation('AlterWarehouseReplication', { replicationId, dataReplication: 'false' }));
    expect((await describeReplication(replicationId)).status).toBe('Stopped');
    await ok(operation('StartReplication', { replicationId }));
    expect(await describeReplication(replicationId)).toMatchObject({ status: 'Running', configuration: { dataReplication: true } });
  });

  it('stores the service configuration', async () => {
    expect(await operation('AlterConfiguration', { parallelDatabaseReplicationsLimit: '0' })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ValidationFailed },
    });
    await ok(operation('AlterConfiguration', { serializeReplications: 'true', parallelDatabaseReplicationsLimit: '2' }));
    expect(await queryControl('SELECT serialize_replications, parallel_database_replications_limit FROM service_configuration')).toEqual([
      { serialize_replications: true, parallel_database_replications_limit: 2 },
    ]);
  });

  /** What the registry answers the gateway's signature check of a call signed with `key`. */
  const checkSigned = (key: { accessKeyId: string; secretKey: string }, options: { now?: Date } = {}) =>
    requester.request(Subjects.registryCheckSignature, { operation: 'ListWarehouseReplications', signed: signedCallFor('ListWarehouseReplications', '{}', key, options) });

  it('checks signatures of the bootstrap key and of a created key, and hands out no key (issue 36 item 10)', async () => {
    expect(await checkSigned({ accessKeyId: BOOTSTRAP_KEY_ID, secretKey: SECRETS.bootstrap })).toEqual({
      ok: true,
      value: { accessKeyId: BOOTSTRAP_KEY_ID, allowedOperations: ['*'] },
    });

    const created = await requester.request(Subjects.registryCreateAccessKey, { allowedOperations: ['ListWarehouseReplications'], description: 'it' });
    if (!created.ok) throw new Error(created.error.messages.join('; '));
    createdKey = created.value;
    expect(await checkSigned(createdKey)).toEqual({ ok: true, value: { accessKeyId: createdKey.accessKeyId, allowedOperations: ['ListWarehouseReplications'] } });

    expect(await checkSigned({ accessKeyId: 'SVCNOSUCHKEY', secretKey: 'x' })).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    // The subject that handed the gateway any key's derived signing key answers no more.
    await expect(nats.request('svc.registry.v1.access-key.signing-key', JSON.stringify({ data: { accessKeyId: BOOTSTRAP_KEY_ID } }), { timeout: 1000 })).rejects.toThrow();
  });

  it('acts for no key on an operation message that its signature does not prove (issue 36 item 10)', async () => {
    const asAdmin = (signed: unknown) => requester.request(Subjects.registryOperation, { requestId: 'forged', operation: 'StopReplicationService', payload: {}, signed } as never);
    expect(await asAdmin(signedCallFor('StopReplicationService', '{}', { accessKeyId: BOOTSTRAP_KEY_ID, secretKey: 'guessed' }))).toMatchObject({
      ok: false,
      error: { code: ErrorCode.Forbidden },
    });
    // A key's own signature of a call it may make is not a licence for another call.
    expect(await asAdmin(signedCallFor('ListWarehouseReplications', '{}', createdKey))).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    expect(await queryControl('SELECT service_stopped FROM service_configuration')).toEqual([{ service_stopped: false }]);
  });

  it('manages access keys for an operator: list without secrets, rotate with overlap, disable (issue 19)', async () => {
    const created = await requester.request(Subjects.registryCreateAccessKey, { allowedOperations: ['ListWarehouseReplications'], description: 'to rotate' });
    if (!created.ok) throw new Error(created.error.messages.join('; '));
    const { accessKeyId, secretKey } = created.value;

    const listed = await requester.request(Subjects.registryManageAccessKeys, { action: 'List' });
    if (!listed.ok) throw new Error(JSON.stringify(listed));
    expect(listed.value.accessKeys?.find((key) => key.accessKeyId === accessKeyId)).toMatchObject({ status: 'Active', replicationScope: 'Own', description: 'to rotate' });
    expect(JSON.stringify(listed)).not.toContain(secretKey);

    const rotated = await requester.request(Subjects.registryManageAccessKeys, { action: 'Rotate', accessKeyId, overlapMinutes: 5 });
    if (!rotated.ok || rotated.value.secretKey === undefined) throw new Error(JSON.stringify(rotated));
    // Both secrets sign while the overlap lasts.
    for (const secret of [rotated.value.secretKey, secretKey]) expect(await checkSigned({ accessKeyId, secretKey: secret })).toMatchObject({ ok: true });

    expect(await requester.request(Subjects.registryManageAccessKeys, { action: 'Disable', accessKeyId })).toEqual({ ok: true, value: {} });
    expect(await checkSigned({ accessKeyId, secretKey: rotated.value.secretKey })).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    expect(await requester.request(Subjects.registryManageAccessKeys, { action: 'Delete', accessKeyId: 'SVCNOSUCHKEY' })).toMatchObject({ ok: false, error: { code: ErrorCode.NotFound } });
    expect(await requester.request(Subjects.registryManageAccessKeys, { action: 'Delete', accessKeyId })).toEqual({ ok: true, value: {} });
    expect(logLines.join('\n')).not.toContain(rotated.value.secretKey);
  });

  it('keeps every piece of state across a restart', async () => {
    const before = await describeReplication(replicationId);
    await app?.close();
    app = undefined;
    await startApp();

    expect(await describeReplication(replicationId)).toEqual(before);
    expect(await checkSigned(createdKey)).toMatchObject({ ok: true, value: { accessKeyId: createdKey.accessKeyId } });
    expect(await queryControl('SELECT version FROM svc_schema_migrations')).toHaveLength(MIGRATIONS.length);
    expect(await queryControl('SELECT parallel_database_replications_limit FROM service_configuration')).toEqual([
      { parallel_database_replications_limit: 2 },
    ]);
  });

  it('deletes the replication and all its state', async () => {
    expect(await ok(operation('DeleteWarehouseReplication', { replicationId }))).toBeNull();
    expect(await operation('DescribeWarehouseReplication', { replicationId })).toMatchObject({ ok: false, error: { code: ErrorCode.NotFound } });
    expect(await ok(operation('ListWarehouseReplications', {}))).toEqual({ replications: [] });
    expect(await queryControl('SELECT 1 FROM replication_history WHERE replication_id = $1', [replicationId])).toEqual([]);
  });

  it('never wrote a secret to the log', () => {
    expect(logLines.length).toBeGreaterThan(0);
    const text = logLines.join('\n');
    for (const secret of [...Object.values(SECRETS), createdKey.secretKey]) expect(text).not.toContain(secret);
    expect(text).toContain('"msg":"operation handled"');
  });
});

import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { Events, type NatsConnection } from 'nats';
import { Subjects, type CreateAccessKeyRequest } from '@svc/contracts';
import { NatsRequester, connectNats, type BusRole } from '@svc/messaging';
import { ADMIN_KEY, TestStack, callSigned, send, signedHeaders, startSecureTestNats, type ApiResponse, type SecureBus, type SignOptions } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';

interface Key {
  accessKeyId: string;
  secretKey: string;
}

// `npm run build` output, as cli-https.integration-spec runs it.
const BUILT_CLI = resolve(__dirname, '../../../dist/apps/cli/src/main.js');

function runBuiltCli(argv: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BUILT_CLI, ...argv], { env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), ...env } }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

const signer = (key: Key): SignOptions => ({ accessKeyId: key.accessKeyId, secretKey: key.secretKey });

/**
 * Issue 19, item 2: access keys over the signed API. A registry and a gateway on a bus whose permissions the
 * production code makes; every call signed as a client signs it.
 */
describe('access keys over the signed API', () => {
  const stack = new TestStack({ startNats: startSecureTestNats });
  const opened: NatsConnection[] = [];

  const call = (operation: string, body: unknown, key: Key = ADMIN_KEY): Promise<ApiResponse> =>
    callSigned(stack.baseUrl, operation, 'json', JSON.stringify(body), signer(key));
  const callXml = (operation: string, inner: string, key: Key = ADMIN_KEY): Promise<ApiResponse> =>
    callSigned(stack.baseUrl, operation, 'xml', `<?xml version="1.0" encoding="UTF-8"?><${operation}Request>${inner}</${operation}Request>`, signer(key));
  const json = (response: ApiResponse): Record<string, unknown> => JSON.parse(response.body) as Record<string, unknown>;
  /** Status and errors; an empty 200 has none. */
  const answerOf = (response: ApiResponse) => ({ status: response.status, errors: response.body === '' ? [] : json(response)['errors'] });

  async function createKey(body: Record<string, unknown>, by: Key = ADMIN_KEY): Promise<Key> {
    const response = await call('CreateAccessKey', body, by);
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 200 });
    const created = json(response) as { accessKeyId: string; secretAccessKey: string };
    return { accessKeyId: created.accessKeyId, secretKey: created.secretAccessKey };
  }

  async function listedIds(key: Key): Promise<string[]> {
    const response = await call('ListAccessKeys', {}, key);
    expect(response.status).toBe(200);
    return (json(response) as { accessKeys: Array<{ accessKeyId: string }> }).accessKeys.map((listed) => listed.accessKeyId).sort();
  }

  /** A key for teams: manages keys, lists and describes its replications, acts on its own replications only. */
  const TEAM_OPERATIONS = 'CreateAccessKey,ListAccessKeys,UpdateAccessKey,DeleteAccessKey,RotateAccessKey,ListWarehouseReplications,DescribeWarehouseReplication';

  beforeAll(async () => {
    await stack.start();
  }, 120000);

  afterAll(async () => {
    await Promise.allSettled(opened.map((connection) => connection.close()));
    await stack.stop();
  }, 60000);

  it('creates a key (secret shown once, XML and JSON) that then signs calls for what it was allowed', async () => {
    const response = await callXml(
      'CreateAccessKey',
      '<AllowedOperations>ListWarehouseReplications,ListAccessKeys</AllowedOperations><Description>dashboards</Description><ExpiresAt>2099-01-01T00:00:00Z</ExpiresAt>',
    );
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/xml/);
    const id = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(response.body)?.[1] ?? '';
    const secret = /<SecretAccessKey>([^<]+)<\/SecretAccessKey>/.exec(response.body)?.[1] ?? '';
    expect(response.body).toContain('<AllowedOperations>ListWarehouseReplications,ListAccessKeys</AllowedOperations><ReplicationScope>Own</ReplicationScope><ExpiresAt>2099-01-01T00:00:00.000Z</ExpiresAt>');
    const created = { accessKeyId: id, secretKey: secret };
    expect((await call('ListWarehouseReplications', {}, created)).status).toBe(200);
    expect((await call('StopReplicationService', {}, created)).status).toBe(403);

    const fromJson = await createKey({ allowedOperations: ['DescribeWarehouseReplication'] });
    expect(fromJson.secretKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(stack.logs()).not.toContain(secret);
    expect(stack.logs()).not.toContain(fromJson.secretKey);
  });

  it('lists keys without any secret: status, scope, operations, expiry, creator, the bootstrap key marked', async () => {
    const created = await createKey({ allowedOperations: 'ListWarehouseReplications', description: 'listed' });
    for (const format of ['json', 'xml'] as const) {
      const response = format === 'json' ? await call('ListAccessKeys', {}) : await callSigned(stack.baseUrl, 'ListAccessKeys', 'xml', '', signer(ADMIN_KEY));
      expect(response.status).toBe(200);
      expect(response.body).not.toContain(created.secretKey);
      expect(response.body).not.toContain(ADMIN_KEY.secretKey);
      expect(response.body).not.toMatch(/secret(Access)?Key/i);
      if (format === 'xml') {
        expect(response.body).toContain(`<AccessKey><AccessKeyId>${ADMIN_KEY.accessKeyId}</AccessKeyId><Status>Active</Status><ReplicationScope>All</ReplicationScope><AllowedOperations>*</AllowedOperations>`);
        continue;
      }
      const keys = (json(response) as { accessKeys: Array<Record<string, unknown>> }).accessKeys;
      expect(keys.find((key) => key['accessKeyId'] === ADMIN_KEY.accessKeyId)).toMatchObject({ bootstrap: true, replicationScope: 'All', status: 'Active' });
      expect(keys.find((key) => key['accessKeyId'] === created.accessKeyId)).toMatchObject({
        status: 'Active',
        replicationScope: 'Own',
        allowedOperations: ['ListWarehouseReplications'],
        description: 'listed',
        createdBy: ADMIN_KEY.accessKeyId,
        bootstrap: false,
      });
    }
  });

  it('refuses a key granting what it lacks: an operation it is not allowed, every operation, or scope All', async () => {
    const team = await createKey({ allowedOperations: TEAM_OPERATIONS });
    const before = await listedIds(ADMIN_KEY);
    const lacking = await call('CreateAccessKey', { allowedOperations: 'ListWarehouseReplications,AlterConfiguration' }, team);
    expect({ status: lacking.status, errors: json(lacking)['errors'] }).toEqual({
      status: 403,
      errors: ['{AllowedOperations}: this key is not allowed AlterConfiguration: a key grants only operations it is allowed itself'],
    });
    expect((await call('CreateAccessKey', { allowedOperations: '*' }, team)).status).toBe(403);
    const wider = await callXml('CreateAccessKey', '<AllowedOperations>ListWarehouseReplications</AllowedOperations><ReplicationScope>All</ReplicationScope>', team);
    expect(wider.status).toBe(403);
    expect(wider.body).toContain('{ReplicationScope}: this key acts on its own replications only, so it cannot grant All: a key grants a scope no wider than its own');
    expect(await listedIds(ADMIN_KEY)).toEqual(before);
    // Within its rights it may.
    await createKey({ allowedOperations: 'ListWarehouseReplications' }, team);
  });

  it("shows an Own key only itself and the keys it created; another creator's key answers as an unknown one", async () => {
    const alice = await createKey({ allowedOperations: TEAM_OPERATIONS });
    const bob = await createKey({ allowedOperations: TEAM_OPERATIONS });
    const alicesReader = await createKey({ allowedOperations: 'ListWarehouseReplications' }, alice);
    expect(await listedIds(alice)).toEqual([alice.accessKeyId, alicesReader.accessKeyId].sort());
    expect(await listedIds(bob)).toEqual([bob.accessKeyId]);

    const hidden = await call('DeleteAccessKey', { accessKeyId: alicesReader.accessKeyId }, bob);
    const unknown = await call('DeleteAccessKey', { accessKeyId: 'SVCNOSUCHKEY000000000' }, bob);
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(json(hidden)['errors']).toEqual([`{AccessKeyId}: access key '${alicesReader.accessKeyId}' does not exist`]);
    expect(json(unknown)['errors']).toEqual(["{AccessKeyId}: access key 'SVCNOSUCHKEY000000000' does not exist"]);
    expect((await call('RotateAccessKey', { accessKeyId: alicesReader.accessKeyId }, bob)).status).toBe(404);
    expect((await call('UpdateAccessKey', { accessKeyId: ADMIN_KEY.accessKeyId, status: 'Disabled' }, bob)).status).toBe(404);
    expect((await call('ListWarehouseReplications', {}, alicesReader)).status).toBe(200);
  });

  it('a disabled key is refused at once; enabled again, it signs again', async () => {
    const key = await createKey({ allowedOperations: 'ListWarehouseReplications' });
    expect((await call('ListWarehouseReplications', {}, key)).status).toBe(200);
    expect((await call('UpdateAccessKey', { accessKeyId: key.accessKeyId, status: 'Disabled' })).status).toBe(200);
    expect((await call('ListWarehouseReplications', {}, key)).status).toBe(403);
    const listed = (json(await call('ListAccessKeys', {})) as { accessKeys: Array<Record<string, unknown>> }).accessKeys;
    expect(listed.find((entry) => entry['accessKeyId'] === key.accessKeyId)).toMatchObject({ status: 'Disabled' });
    expect((await callXml('UpdateAccessKey', `<AccessKeyId>${key.accessKeyId}</AccessKeyId><Status>Enabled</Status>`)).status).toBe(200);
    await waitUntil(async () => (await call('ListWarehouseReplications', {}, key)).status === 200, 10000, 'the enabled key to sign again');
  });

  it('rotates: the new secret is shown once and signs; the replaced one still signs within the overlap', async () => {
    const team = await createKey({ allowedOperations: TEAM_OPERATIONS });
    const response = await call('RotateAccessKey', { accessKeyId: team.accessKeyId, overlapMinutes: 5 }, team);
    expect(response.status).toBe(200);
    const rotated = json(response) as { accessKeyId: string; secretAccessKey: string; previousSecretValidUntil: string };
    expect(rotated.accessKeyId).toBe(team.accessKeyId);
    expect(rotated.secretAccessKey).not.toBe(team.secretKey);
    expect(Date.parse(rotated.previousSecretValidUntil) - Date.now()).toBeGreaterThan(4 * 60_000);
    const renewed = { accessKeyId: team.accessKeyId, secretKey: rotated.secretAccessKey };
    await waitUntil(async () => (await call('ListWarehouseReplications', {}, renewed)).status === 200, 10000, 'the new secret to sign');
    expect((await call('ListWarehouseReplications', {}, team)).status).toBe(200);
    // Without an overlap the replaced secret stops at once.
    expect((await call('RotateAccessKey', { accessKeyId: team.accessKeyId, overlapMinutes: 0 }, renewed)).status).toBe(200);
    await waitUntil(async () => (await call('ListWarehouseReplications', {}, renewed)).status === 403, 10000, 'the replaced secret to be refused');
  });

  it('refuses a replayed CreateAccessKey: the same signature creates no second key', async () => {
    const body = JSON.stringify({ allowedOperations: 'ListWarehouseReplications', description: 'replayed' });
    const headers = signedHeaders(stack.baseUrl, 'CreateAccessKey', 'application/json', body, { ...signer(ADMIN_KEY), nonce: 'replayed-create' });
    const first = await send(stack.baseUrl, 'POST', '/api/CreateAccessKey', headers, body);
    const again = await send(stack.baseUrl, 'POST', '/api/CreateAccessKey', headers, body);
    expect(first.status).toBe(200);
    expect(again.status).toBe(403);
    expect(again.body).toContain('this signed request was already received');
    const listed = (json(await call('ListAccessKeys', {})) as { accessKeys: Array<Record<string, unknown>> }).accessKeys;
    expect(listed.filter((key) => key['description'] === 'replayed')).toHaveLength(1);
  });

  /** A key an operator makes on the bus: created by no key, so it follows none. */
  async function operatorKey(request: CreateAccessKeyRequest): Promise<Key> {
    const bus = (stack.nats as unknown as { bus: SecureBus }).bus;
    const operator = await connectNats(stack.nats.url, 'keys-as-operator', bus.specOf('operator'));
    opened.push(operator);
    const created = await new NatsRequester(operator, 5000).request(Subjects.registryCreateAccessKey, request);
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    return { accessKeyId: created.value.accessKeyId, secretKey: created.value.secretKey };
  }

  it('keeps one enabled All key: the last one may not be disabled or deleted, counting the keys that stop with it', async () => {
    const lastAll = await call('UpdateAccessKey', { accessKeyId: ADMIN_KEY.accessKeyId, status: 'Disabled' });
    expect({ status: lastAll.status, errors: json(lastAll)['errors'] }).toEqual({
      status: 400,
      errors: [`{AccessKeyId}: key '${ADMIN_KEY.accessKeyId}' is the last enabled key with ReplicationScope All: create or enable another All key first, so that keys can still be managed`],
    });
    expect((await call('DeleteAccessKey', { accessKeyId: ADMIN_KEY.accessKeyId })).status).toBe(400);
    // An All key the bootstrap key created stops with it (issue 36), so it does not count.
    await createKey({ allowedOperations: '*', replicationScope: 'All' });
    const withItsOwn = await call('UpdateAccessKey', { accessKeyId: ADMIN_KEY.accessKeyId, status: 'Disabled' });
    expect(answerOf(withItsOwn)).toEqual({
      status: 400,
      errors: [
        `{AccessKeyId}: key '${ADMIN_KEY.accessKeyId}' and the keys it created are the last enabled keys with ReplicationScope All (a key stops with the key that created it): create or enable an All key it did not create first (an operator's: svc keys create --operations '*' --replications all --over-bus), so that keys can still be managed`,
      ],
    });
    // With a second All key of its own (an operator's), the bootstrap key may be disabled, and enabled again by the other.
    const second = await operatorKey({ allowedOperations: ['*'], replicationScope: 'All' });
    expect((await call('UpdateAccessKey', { accessKeyId: ADMIN_KEY.accessKeyId, status: 'Disabled' })).status).toBe(200);
    expect((await call('UpdateAccessKey', { accessKeyId: ADMIN_KEY.accessKeyId, status: 'Enabled' }, second)).status).toBe(200);
    await waitUntil(async () => (await call('ListAccessKeys', {})).status === 200, 10000, 'the bootstrap key to sign again');
  });

  describe('issue 36, item 4: no key outlives, or undoes, what a key above it decided', () => {
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();

    it('refuses a key lengthening its own lifetime: ExpiresAt Never or later is 403, sooner is fine', async () => {
      const temporary = await createKey({ allowedOperations: TEAM_OPERATIONS, expiresAt: inAnHour });
      const never = await call('UpdateAccessKey', { accessKeyId: temporary.accessKeyId, expiresAt: 'Never' }, temporary);
      expect(answerOf(never)).toEqual({
        status: 403,
        errors: [`{ExpiresAt}: a key may only shorten its own lifetime: this key expires at ${inAnHour}`],
      });
      const later = await callXml('UpdateAccessKey', `<AccessKeyId>${temporary.accessKeyId}</AccessKeyId><ExpiresAt>2099-01-01T00:00:00Z</ExpiresAt>`, temporary);
      expect(later.status).toBe(403);
      expect(later.body).toContain('{ExpiresAt}: a key may only shorten its own lifetime');
      const sooner = new Date(Date.now() + 1_800_000).toISOString();
      expect((await call('UpdateAccessKey', { accessKeyId: temporary.accessKeyId, expiresAt: sooner }, temporary)).status).toBe(200);
      const listed = (json(await call('ListAccessKeys', {})) as { accessKeys: Array<Record<string, unknown>> }).accessKeys;
      expect(listed.find((key) => key['accessKeyId'] === temporary.accessKeyId)).toMatchObject({ expiresAt: sooner });
    });

    it("caps a created key's expiry at its creator's: without one it gets the creator's, a later one is 403", async () => {
      const temporary = await createKey({ allowedOperations: TEAM_OPERATIONS, expiresAt: inAnHour });
      const capped = await call('CreateAccessKey', { allowedOperations: 'ListWarehouseReplications' }, temporary);
      expect(capped.status).toBe(200);
      expect(json(capped)['expiresAt']).toBe(inAnHour);
      const longer = await call('CreateAccessKey', { allowedOperations: 'ListWarehouseReplications', expiresAt: '2099-01-01T00:00:00Z' }, temporary);
      expect(answerOf(longer)).toEqual({
        status: 403,
        errors: [`{ExpiresAt}: this key expires at ${inAnHour}, so it cannot give a key a later expiry: a key grants a lifetime no longer than its own`],
      });
    });

    it('stops a key whose creator is disabled, until it is enabled again, and for good once it is deleted', async () => {
      const team = await createKey({ allowedOperations: TEAM_OPERATIONS });
      const reader = await createKey({ allowedOperations: 'ListWarehouseReplications' }, team);
      expect((await call('ListWarehouseReplications', {}, reader)).status).toBe(200);
      expect((await call('UpdateAccessKey', { accessKeyId: team.accessKeyId, status: 'Disabled' })).status).toBe(200);
      // Refused at once: the registry checks every call's signature.
      expect((await call('ListWarehouseReplications', {}, reader)).status).toBe(403);
      const listed = (json(await call('ListAccessKeys', {})) as { accessKeys: Array<Record<string, unknown>> }).accessKeys;
      expect(listed.find((key) => key['accessKeyId'] === reader.accessKeyId)).toMatchObject({ status: 'Disabled' });
      expect((await call('UpdateAccessKey', { accessKeyId: team.accessKeyId, status: 'Enabled' })).status).toBe(200);
      await waitUntil(async () => (await call('ListWarehouseReplications', {}, reader)).status === 200, 10000, 'the reader to sign again');
      expect((await call('DeleteAccessKey', { accessKeyId: team.accessKeyId })).status).toBe(200);
      expect((await call('ListWarehouseReplications', {}, reader)).status).toBe(403);
    });

    it('lets only a key at least as wide enable a key an All key disabled', async () => {
      const team = await createKey({ allowedOperations: TEAM_OPERATIONS });
      const reader = await createKey({ allowedOperations: 'ListWarehouseReplications' }, team);
      expect((await call('UpdateAccessKey', { accessKeyId: reader.accessKeyId, status: 'Disabled' })).status).toBe(200);
      const undone = await call('UpdateAccessKey', { accessKeyId: reader.accessKeyId, status: 'Enabled' }, team);
      expect(answerOf(undone)).toEqual({
        status: 403,
        errors: [`{Status}: key '${reader.accessKeyId}' was disabled by a key with ReplicationScope All: only a key of scope All enables it again`],
      });
      expect((await call('ListWarehouseReplications', {}, reader)).status).toBe(403);
      expect((await call('UpdateAccessKey', { accessKeyId: reader.accessKeyId, status: 'Enabled' })).status).toBe(200);
      await waitUntil(async () => (await call('ListWarehouseReplications', {}, reader)).status === 200, 10000, 'the reader to sign again');
    });
  });

  it('svc keys works over the signed API with the caller\'s credentials, and over the bus as an operator', async () => {
    const as = (key: Key) => ({ SVC_ACCESS_KEY_ID: key.accessKeyId, SVC_SECRET_ACCESS_KEY: key.secretKey, SVC_ENDPOINT: stack.baseUrl });
    const created = await runBuiltCli(['keys', 'create', '--operations', 'list,list-keys,create-key', '--description', 'from the cli'], as(ADMIN_KEY));
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    const cliKey = {
      accessKeyId: /svc_access_key_id = (\S+)/.exec(created.stdout)?.[1] ?? '',
      secretKey: /svc_secret_access_key = (\S+)/.exec(created.stdout)?.[1] ?? '',
    };
    const listed = await runBuiltCli(['keys', 'list'], as(cliKey));
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(listed.stdout).toContain(cliKey.accessKeyId);
    expect(listed.stdout).not.toContain(cliKey.secretKey);
    expect(listed.stdout).not.toContain(ADMIN_KEY.accessKeyId);

    const escalation = await runBuiltCli(['keys', 'create', '--operations', 'list', '--replications', 'all'], as(cliKey));
    expect(escalation.code).toBe(1);
    expect(escalation.stderr).toContain('{ReplicationScope}: this key acts on its own replications only, so it cannot grant All');

    const bus = (stack.nats as unknown as { bus: SecureBus }).bus;
    const overBus = await runBuiltCli(['keys', 'list', '--over-bus'], { NATS_URL: stack.nats.url, ...bus.envOf('operator') });
    expect({ code: overBus.code, stderr: overBus.stderr }).toEqual({ code: 0, stderr: '' });
    expect(overBus.stdout).toContain(`${ADMIN_KEY.accessKeyId} (bootstrap)`);
    // The same command as another role is refused by the bus.
    const asGateway = await runBuiltCli(['keys', 'list', '--over-bus'], { NATS_URL: stack.nats.url, ...bus.envOf('api-gateway') });
    expect(asGateway.code).not.toBe(0);
  }, 60000);

  it('on the bus, only an operator may manage keys: the gateway and the workers are refused by NATS permissions', async () => {
    const bus = (stack.nats as unknown as { bus: SecureBus }).bus;
    const attempt = async (role: BusRole): Promise<{ answered: boolean; violations: string[] }> => {
      const connection = await connectNats(stack.nats.url, `keys-as-${role}`, bus.specOf(role));
      opened.push(connection);
      const violations: string[] = [];
      void (async () => {
        for await (const status of connection.status()) {
          if (status.type === Events.Error && status.permissionContext) violations.push(`${status.permissionContext.operation} ${status.permissionContext.subject}`);
        }
      })();
      const answered = await new NatsRequester(connection, 1500)
        .request(Subjects.registryManageAccessKeys, { action: 'Disable', accessKeyId: ADMIN_KEY.accessKeyId })
        .then(() => true)
        .catch(() => false);
      await connection.flush().catch(() => undefined);
      return { answered, violations };
    };
    for (const role of ['api-gateway', 'extractor', 'stager', 'loader'] as const) {
      const outcome = await attempt(role);
      expect({ role, ...outcome }).toEqual({ role, answered: false, violations: [`publish ${Subjects.registryManageAccessKeys}`] });
    }
    expect((await call('ListWarehouseReplications', {})).status).toBe(200);
    // The operator may (the test would not tell a refusal from a broken request otherwise): it lists the keys.
    const operator = await connectNats(stack.nats.url, 'keys-as-operator', bus.specOf('operator'));
    opened.push(operator);
    const listed = await new NatsRequester(operator, 5000).request(Subjects.registryManageAccessKeys, { action: 'List' });
    expect(listed.ok && listed.value.accessKeys?.some((key) => key.accessKeyId === ADMIN_KEY.accessKeyId)).toBe(true);
  });
});

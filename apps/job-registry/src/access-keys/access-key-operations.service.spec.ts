import { ErrorCode, type AccessKeyOperationName } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import type { AccessKeyListing, NewAccessKey } from '@svc/registry-store';
import { InMemoryAccessKeyStore } from '../testing/in-memory-stores';
import { AccessKeyOperations } from './access-key-operations.service';
import { AccessKeysService } from './access-keys.service';
import { CredentialGenerator } from './credential-generator';

describe('AccessKeyOperations', () => {
  let keys: InMemoryAccessKeyStore;
  let operations: AccessKeyOperations;
  let logLines: string[];

  const key = (accessKeyId: string, rights: Partial<NewAccessKey> = {}): NewAccessKey => ({
    accessKeyId,
    secretKey: `secret-of-${accessKeyId}`,
    allowedOperations: ['*'],
    replicationScope: 'All',
    description: '',
    ...rights,
  });

  async function caller(accessKeyId: string, operation: AccessKeyOperationName = 'ListAccessKeys'): Promise<AccessKeyListing> {
    const found = await operations.callerFor(accessKeyId, operation);
    if ('refusal' in found) throw new Error(JSON.stringify(found.refusal));
    return found.caller;
  }

  beforeEach(async () => {
    keys = new InMemoryAccessKeyStore();
    logLines = [];
    const logger = new JsonLogger('job-registry', 'debug', (line) => logLines.push(line));
    const lifecycle = new AccessKeysService(keys, new CredentialGenerator(), { region: 'us-east-1', bootstrapAccessKey: null }, logger);
    operations = new AccessKeyOperations(lifecycle, keys);
    await keys.upsertBootstrap('SVCADMIN', 'admin-secret');
    await keys.create(key('SVCKEYADMIN', { allowedOperations: ['CreateAccessKey', 'ListAccessKeys', 'RotateAccessKey', 'UpdateAccessKey', 'DeleteAccessKey', 'ListWarehouseReplications'] }));
    await keys.create(key('SVCTEAM', { replicationScope: 'Own', allowedOperations: ['CreateAccessKey', 'ListAccessKeys', 'RotateAccessKey', 'DeleteAccessKey', 'UpdateAccessKey', 'DescribeWarehouseReplication'] }));
  });

  it('creates a key recording its creator, with the secret in the answer only', async () => {
    const reply = await operations.create(await caller('SVCTEAM', 'CreateAccessKey'), { allowedOperations: ['DescribeWarehouseReplication'], description: 'dashboards' });
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.value).toMatchObject({ allowedOperations: ['DescribeWarehouseReplication'], replicationScope: 'Own', expiresAt: null });
    expect(await keys.get(reply.value.accessKeyId)).toMatchObject({ createdBy: 'SVCTEAM', description: 'dashboards' });
    expect((await keys.find(reply.value.accessKeyId))?.secretKey).toBe(reply.value.secretAccessKey);
    expect(logLines.join('\n')).not.toContain(reply.value.secretAccessKey);
  });

  it.each([
    ['an operation it lacks', { allowedOperations: ['AlterConfiguration', 'DescribeWarehouseReplication'] }, ['{AllowedOperations}: this key is not allowed AlterConfiguration: a key grants only operations it is allowed itself']],
    ['every operation', { allowedOperations: ['*'] }, ["{AllowedOperations}: this key is not allowed '*' (every operation): a key grants only operations it is allowed itself"]],
    [
      'scope All',
      { allowedOperations: ['DescribeWarehouseReplication'], replicationScope: 'All' as const },
      ['{ReplicationScope}: this key acts on its own replications only, so it cannot grant All: a key grants a scope no wider than its own'],
    ],
  ])('refuses an Own key granting %s, and stores nothing', async (_label, request, messages) => {
    const before = keys.keys.size;
    expect(await operations.create(await caller('SVCTEAM', 'CreateAccessKey'), request)).toEqual({ ok: false, error: { code: ErrorCode.Forbidden, messages } });
    expect(keys.keys.size).toBe(before);
  });

  it('refuses an expiry in the past', async () => {
    const reply = await operations.create(await caller('SVCADMIN'), { allowedOperations: ['*'], expiresAt: '2020-01-01T00:00:00.000Z' });
    expect(reply).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: ['{ExpiresAt}: must be in the future'] } });
  });

  it('shows an Own key itself and the keys it created; an All key every key, the bootstrap key marked', async () => {
    const created = await operations.create(await caller('SVCTEAM'), { allowedOperations: ['DescribeWarehouseReplication'] });
    const createdId = created.ok ? created.value.accessKeyId : '';
    const own = await operations.list(await caller('SVCTEAM'));
    expect(own.ok && own.value.accessKeys.map((listed) => listed.accessKeyId).sort()).toEqual([createdId, 'SVCTEAM'].sort());
    const all = await operations.list(await caller('SVCKEYADMIN'));
    expect(all.ok && all.value.accessKeys.map((listed) => listed.accessKeyId).sort()).toEqual([createdId, 'SVCADMIN', 'SVCKEYADMIN', 'SVCTEAM'].sort());
    expect(all.ok && all.value.accessKeys.find((listed) => listed.accessKeyId === 'SVCADMIN')).toMatchObject({ bootstrap: true, status: 'Active', createdBy: null });
    expect(JSON.stringify(all)).not.toMatch(/secret-of|admin-secret/);
  });

  it('answers a key the caller may not see exactly as one that does not exist', async () => {
    const team = await caller('SVCTEAM');
    const unknown = await operations.delete(team, { accessKeyId: 'SVCNOSUCHKEY' });
    const hidden = await operations.delete(team, { accessKeyId: 'SVCKEYADMIN' });
    expect(hidden).toEqual({ ok: false, error: { code: ErrorCode.NotFound, messages: ["{AccessKeyId}: access key 'SVCKEYADMIN' does not exist"] } });
    expect(JSON.stringify(unknown).replace('SVCNOSUCHKEY', 'X')).toBe(JSON.stringify(hidden).replace('SVCKEYADMIN', 'X'));
    expect(await operations.rotate(team, { accessKeyId: 'SVCADMIN' })).toMatchObject({ ok: false, error: { code: ErrorCode.NotFound } });
    expect(await operations.update(team, { accessKeyId: 'SVCADMIN', status: 'Disabled' })).toMatchObject({ ok: false, error: { code: ErrorCode.NotFound } });
    expect(await keys.scopeOf('SVCKEYADMIN')).toBe('All');
  });

  it('rotates a key within its rights; not one with operations it lacks, whose new secret it would hold', async () => {
    const admin = await caller('SVCKEYADMIN');
    expect(await operations.rotate(admin, { accessKeyId: 'SVCADMIN' })).toEqual({
      ok: false,
      error: {
        code: ErrorCode.Forbidden,
        messages: [
          "{AccessKeyId}: key 'SVCADMIN' has operations this key is not allowed ('*' (every operation)): a key rotates only keys whose operations and scope are within its own, since it receives their new secret",
        ],
      },
    });
    const rotated = await operations.rotate(await caller('SVCADMIN'), { accessKeyId: 'SVCKEYADMIN', overlapMinutes: 5 });
    expect(rotated).toMatchObject({ ok: true, value: { accessKeyId: 'SVCKEYADMIN' } });
    const stored = await keys.find('SVCKEYADMIN');
    expect(rotated.ok && stored).toMatchObject({ secretKey: rotated.ok ? rotated.value.secretAccessKey : '', previousSecretKey: 'secret-of-SVCKEYADMIN' });
  });

  it('disables, re-enables, expires and deletes; the last usable All key is refused by the rule', async () => {
    const admin = await caller('SVCADMIN');
    expect(await operations.update(admin, { accessKeyId: 'SVCKEYADMIN', status: 'Disabled' })).toEqual({ ok: true, value: null });
    expect(await keys.scopeOf('SVCKEYADMIN')).toBeNull();
    const lastAll = { ok: false, error: { code: ErrorCode.Conflict, messages: ["{AccessKeyId}: key 'SVCADMIN' is the last enabled key with ReplicationScope All: create or enable another All key first, so that keys can still be managed"] } };
    expect(await operations.update(admin, { accessKeyId: 'SVCADMIN', status: 'Disabled' })).toEqual(lastAll);
    expect(await operations.delete(admin, { accessKeyId: 'SVCADMIN' })).toEqual(lastAll);
    expect(await operations.update(admin, { accessKeyId: 'SVCADMIN', expiresAt: '2099-01-01T00:00:00.000Z' })).toEqual(lastAll);
    expect(await keys.scopeOf('SVCADMIN')).toBe('All');
    expect(await operations.update(admin, { accessKeyId: 'SVCKEYADMIN', status: 'Enabled', expiresAt: '2099-01-01T00:00:00.000Z' })).toEqual({ ok: true, value: null });
    expect(await keys.get('SVCKEYADMIN')).toMatchObject({ disabled: false, expiresAt: new Date('2099-01-01T00:00:00.000Z') });
    expect(await operations.update(admin, { accessKeyId: 'SVCKEYADMIN', expiresAt: 'Never' })).toEqual({ ok: true, value: null });
    expect(await keys.get('SVCKEYADMIN')).toMatchObject({ expiresAt: null });
    // With another All key usable, the bootstrap key may go.
    expect(await operations.update(admin, { accessKeyId: 'SVCADMIN', status: 'Disabled' })).toEqual({ ok: true, value: null });
    expect(await operations.delete(await caller('SVCKEYADMIN'), { accessKeyId: 'SVCTEAM' })).toEqual({ ok: true, value: null });
    expect(await keys.get('SVCTEAM')).toBeNull();
  });

  it('refuses a caller that is disabled, or not allowed the operation by name', async () => {
    await keys.change('SVCTEAM', { kind: 'status', disabled: true }, { keepAnAllKey: false });
    expect(await operations.callerFor('SVCTEAM', 'ListAccessKeys')).toEqual({ refusal: { ok: false, error: { code: ErrorCode.Forbidden, messages: ['the access key does not exist (any more)'] } } });
    await keys.create(key('SVCREADER', { allowedOperations: ['ListWarehouseReplications'] }));
    expect(await operations.callerFor('SVCREADER', 'CreateAccessKey')).toEqual({ refusal: { ok: false, error: { code: ErrorCode.Forbidden, messages: ['the access key is not allowed CreateAccessKey'] } } });
  });
});

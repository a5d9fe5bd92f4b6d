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
    const lifecycle = new AccessKeysService(keys, new CredentialGenerator(), { bootstrapAccessKey: null }, logger);
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
    await keys.change('SVCTEAM', { kind: 'status', disabled: true }, { kind: 'operator' });
    expect(await operations.callerFor('SVCTEAM', 'ListAccessKeys')).toEqual({ refusal: { ok: false, error: { code: ErrorCode.Forbidden, messages: [expect.stringMatching(/^access key SVCTEAM is disabled \(itself, or the key it was created under\): a key allowed UpdateAccessKey sets its Status to Active again$/)] } } });
    await keys.create(key('SVCREADER', { allowedOperations: ['ListWarehouseReplications'] }));
    expect(await operations.callerFor('SVCREADER', 'CreateAccessKey')).toEqual({ refusal: { ok: false, error: { code: ErrorCode.Forbidden, messages: ['the access key is not allowed CreateAccessKey'] } } });
  });
});

/** Issue 36, item 4: a key cannot outlive, out-enable or out-last the keys above it. */
describe('AccessKeyOperations: key lifecycle escalation (issue 36)', () => {
  let keys: InMemoryAccessKeyStore;
  let operations: AccessKeyOperations;
  const inAnHour = new Date(Date.now() + 3_600_000);
  const KEY_OPERATIONS = ['CreateAccessKey', 'ListAccessKeys', 'UpdateAccessKey', 'DeleteAccessKey', 'ListWarehouseReplications'];

  async function caller(accessKeyId: string): Promise<AccessKeyListing> {
    const found = await operations.callerFor(accessKeyId, 'ListAccessKeys');
    if ('refusal' in found) throw new Error(JSON.stringify(found.refusal));
    return found.caller;
  }

  const forbidden = (...messages: string[]) => ({ ok: false, error: { code: ErrorCode.Forbidden, messages } });

  beforeEach(async () => {
    keys = new InMemoryAccessKeyStore();
    const logger = new JsonLogger('job-registry', 'error', () => undefined);
    operations = new AccessKeyOperations(new AccessKeysService(keys, new CredentialGenerator(), { bootstrapAccessKey: null }, logger), keys);
    await keys.upsertBootstrap('SVCADMIN', 'admin-secret');
    const base = { secretKey: 'secret', description: '', allowedOperations: KEY_OPERATIONS };
    await keys.create({ ...base, accessKeyId: 'SVCTEMP', replicationScope: 'Own', createdBy: 'SVCADMIN', expiresAt: inAnHour });
    await keys.create({ ...base, accessKeyId: 'SVCTEAM', replicationScope: 'Own', createdBy: 'SVCADMIN' });
  });

  it('refuses a key lengthening its own lifetime (a later ExpiresAt, or Never); shortening it is fine', async () => {
    const temp = await caller('SVCTEMP');
    const rule = `{ExpiresAt}: a key may only shorten its own lifetime: this key expires at ${inAnHour.toISOString()}`;
    expect(await operations.update(temp, { accessKeyId: 'SVCTEMP', expiresAt: 'Never' })).toEqual(forbidden(rule));
    expect(await operations.update(temp, { accessKeyId: 'SVCTEMP', expiresAt: '2099-01-01T00:00:00.000Z' })).toEqual(forbidden(rule));
    expect((await keys.get('SVCTEMP'))?.expiresAt).toEqual(inAnHour);
    const sooner = new Date(Date.now() + 600_000).toISOString();
    expect(await operations.update(temp, { accessKeyId: 'SVCTEMP', expiresAt: sooner })).toEqual({ ok: true, value: null });
    expect((await keys.get('SVCTEMP'))?.expiresAt?.toISOString()).toBe(sooner);
  });

  it("caps a created key's expiry at its creator's: none asked gets the creator's, a later one is refused", async () => {
    const temp = await caller('SVCTEMP');
    const capped = await operations.create(temp, { allowedOperations: ['ListWarehouseReplications'] });
    expect(capped).toMatchObject({ ok: true, value: { expiresAt: inAnHour.toISOString() } });
    expect(capped.ok && (await keys.get(capped.value.accessKeyId))?.expiresAt).toEqual(inAnHour);
    expect(await operations.create(temp, { allowedOperations: ['ListWarehouseReplications'], expiresAt: '2099-01-01T00:00:00.000Z' })).toEqual(
      forbidden(`{ExpiresAt}: this key expires at ${inAnHour.toISOString()}, so it cannot give a key a later expiry: a key grants a lifetime no longer than its own`),
    );
    // Nor give a key it manages a later one afterwards.
    const child = capped.ok ? capped.value.accessKeyId : '';
    expect(await operations.update(temp, { accessKeyId: child, expiresAt: 'Never' })).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
  });

  it('stops a key whose creator, or a creator further up, is disabled, expired or deleted; it signs again when the creator is enabled', async () => {
    const child = await operations.create(await caller('SVCTEAM'), { allowedOperations: KEY_OPERATIONS });
    const childId = child.ok ? child.value.accessKeyId : '';
    const grandchild = await operations.create(await caller(childId), { allowedOperations: ['ListWarehouseReplications'] });
    const grandchildId = grandchild.ok ? grandchild.value.accessKeyId : '';
    expect(await keys.scopeOf(grandchildId)).toBe('Own');

    const admin = await caller('SVCADMIN');
    expect(await operations.update(admin, { accessKeyId: 'SVCTEAM', status: 'Disabled' })).toEqual({ ok: true, value: null });
    for (const id of [childId, grandchildId]) {
      expect(await keys.scopeOf(id)).toBeNull();
      expect(await keys.find(id)).toBeNull();
      expect(await operations.callerFor(id, 'ListAccessKeys')).toHaveProperty('refusal');
    }
    const listed = await operations.list(admin);
    expect(listed.ok && listed.value.accessKeys.find((key) => key.accessKeyId === grandchildId)).toMatchObject({ status: 'Disabled' });

    expect(await operations.update(admin, { accessKeyId: 'SVCTEAM', status: 'Enabled' })).toEqual({ ok: true, value: null });
    expect(await keys.scopeOf(grandchildId)).toBe('Own');

    const soon = new Date(Date.now() + 60_000);
    expect(await operations.update(admin, { accessKeyId: 'SVCTEAM', expiresAt: soon.toISOString() })).toEqual({ ok: true, value: null });
    const expiring = await operations.list(admin);
    expect(expiring.ok && expiring.value.accessKeys.find((key) => key.accessKeyId === grandchildId)).toMatchObject({ expiresAt: soon.toISOString() });

    expect(await operations.delete(admin, { accessKeyId: childId })).toEqual({ ok: true, value: null });
    expect(await keys.scopeOf(grandchildId)).toBeNull();
    expect(await keys.find(grandchildId)).toBeNull();
  });

  it('stops a key whose creator has expired', async () => {
    await keys.create({ accessKeyId: 'SVCCHILD', secretKey: 's', description: '', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own', createdBy: 'SVCTEMP' });
    expect(await keys.scopeOf('SVCCHILD')).toBe('Own');
    await keys.change('SVCTEMP', { kind: 'expiry', expiresAt: new Date(Date.now() - 1000) }, { kind: 'operator' });
    expect(await keys.scopeOf('SVCCHILD')).toBeNull();
    expect(await keys.mayReadErrorDetails('SVCCHILD')).toBe(false);
  });

  it('lets a key disabled by an All key be enabled only by a key at least as wide', async () => {
    const team = await caller('SVCTEAM');
    const child = await operations.create(team, { allowedOperations: ['ListWarehouseReplications'] });
    const childId = child.ok ? child.value.accessKeyId : '';
    expect(await operations.update(await caller('SVCADMIN'), { accessKeyId: childId, status: 'Disabled' })).toEqual({ ok: true, value: null });
    const rule = forbidden(`{Status}: key '${childId}' was disabled by a key with ReplicationScope All: only a key of scope All enables it again`);
    expect(await operations.update(team, { accessKeyId: childId, status: 'Enabled' })).toEqual(rule);
    // Disabling it again itself does not make the disable its own.
    expect(await operations.update(team, { accessKeyId: childId, status: 'Disabled' })).toEqual({ ok: true, value: null });
    expect(await operations.update(team, { accessKeyId: childId, status: 'Enabled' })).toEqual(rule);
    expect(await keys.scopeOf(childId)).toBeNull();
    expect(await operations.update(await caller('SVCADMIN'), { accessKeyId: childId, status: 'Enabled' })).toEqual({ ok: true, value: null });
    expect(await keys.scopeOf(childId)).toBe('Own');
    // A disable of its own, the creator undoes.
    expect(await operations.update(team, { accessKeyId: childId, status: 'Disabled' })).toEqual({ ok: true, value: null });
    expect(await operations.update(team, { accessKeyId: childId, status: 'Enabled' })).toEqual({ ok: true, value: null });
    expect(await keys.scopeOf(childId)).toBe('Own');
  });

  it('refuses a key lengthening the lifetime of a creator its own lifetime follows', async () => {
    const base = { secretKey: 's', description: '', allowedOperations: ['*'], replicationScope: 'All' as const };
    // Stored before expiries were capped: the child's own expiry is none, its creator's an hour.
    await keys.create({ ...base, accessKeyId: 'SVCPARENT', expiresAt: inAnHour });
    await keys.create({ ...base, accessKeyId: 'SVCHEIR', createdBy: 'SVCPARENT' });
    const heir = await caller('SVCHEIR');
    expect(await operations.update(heir, { accessKeyId: 'SVCPARENT', expiresAt: 'Never' })).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    expect((await keys.get('SVCPARENT'))?.expiresAt).toEqual(inAnHour);
  });

  it('counts the All keys a key created as stopping with it, for the last All key rule', async () => {
    const admin = await caller('SVCADMIN');
    const second = await operations.create(admin, { allowedOperations: ['*'], replicationScope: 'All' });
    expect(second.ok).toBe(true);
    expect(await operations.update(admin, { accessKeyId: 'SVCADMIN', status: 'Disabled' })).toEqual({
      ok: false,
      error: {
        code: ErrorCode.Conflict,
        messages: [
          "{AccessKeyId}: key 'SVCADMIN' and the keys it created are the last enabled keys with ReplicationScope All (a key stops with the key that created it): create or enable an All key it did not create first (an operator's: svc keys create --operations '*' --replications all --over-bus), so that keys can still be managed",
        ],
      },
    });
    expect(await keys.scopeOf('SVCADMIN')).toBe('All');
  });

  it('leaves a key an operator disabled to an operator', async () => {
    await keys.change('SVCTEAM', { kind: 'status', disabled: true }, { kind: 'operator' });
    expect(await operations.update(await caller('SVCADMIN'), { accessKeyId: 'SVCTEAM', status: 'Enabled' })).toEqual(
      forbidden("{Status}: key 'SVCTEAM' was disabled by an operator on the bus: only an operator enables it again (svc keys enable --access-key-id … --over-bus)"),
    );
    expect(await keys.change('SVCTEAM', { kind: 'status', disabled: false }, { kind: 'operator' })).toBe('changed');
    expect(await keys.scopeOf('SVCTEAM')).toBe('Own');
  });
});

import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@svc/crypto';
import { createTempDatabase, sampleReplicationConfig, type TempDatabase } from '@svc/testing';
import { AlertDeliveryRepository } from './alert-delivery-repository';
import { AlertRepository } from './alert-repository';
import { AlertTargetRepository, type AlertTarget } from './alert-target-repository';
import { migrate } from './migrate';
import { ReplicationRepository } from './replication-repository';
import { resealStoredSecrets } from './reseal-secrets';

const WEBHOOK_SECRET = 'whsec-registry-store-0123456789';
const webhook = (name: string, overrides: Partial<AlertTarget> = {}): AlertTarget => ({
  name,
  spec: { type: 'Webhook', url: `https://hooks.example.com/services/T0/${name}-path-secret`, signingSecret: WEBHOOK_SECRET },
  alertKinds: null,
  replicationIds: null,
  ...overrides,
});

describe('alert targets and the outbox of their deliveries (PostgreSQL)', () => {
  let database: TempDatabase;
  let pool: Pool;
  const masterKey = randomBytes(32);
  let box: SecretBox;
  let targets: AlertTargetRepository;
  let deliveries: AlertDeliveryRepository;
  let alerts: AlertRepository;
  let replicationId = '';
  let otherReplicationId = '';

  beforeAll(async () => {
    database = await createTempDatabase('svc_alert_targets_it');
    pool = new Pool({ connectionString: database.url, max: 6 });
    await migrate(pool);
    box = new SecretBox(masterKey);
    targets = new AlertTargetRepository(pool, box);
    deliveries = new AlertDeliveryRepository(pool, targets);
    alerts = new AlertRepository(pool);
    const replications = new ReplicationRepository(pool, box);
    const author = { requestId: 'r', accessKeyId: 'SVCTESTKEY' };
    replicationId = (await replications.insert({ status: 'Running', config: { ...sampleReplicationConfig(), replicationName: 'sales' } }, author)).replicationId;
    otherReplicationId = (await replications.insert({ status: 'Running', config: { ...sampleReplicationConfig(), replicationName: 'hr' } }, author)).replicationId;
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  beforeEach(async () => {
    await pool.query('DELETE FROM alert_targets; DELETE FROM alerts');
  });

  it('keeps every secret of a target sealed, opens it whole, and lists it without one', async () => {
    expect(await targets.put(webhook('ops'), 24)).toBe('created');
    expect(await targets.put(webhook('ops'), 24)).toBe('replaced');
    const raw = await pool.query<{ row: string }>("SELECT row_to_json(t)::text AS row FROM alert_targets t WHERE name = 'ops'");
    expect(raw.rows[0]?.row).not.toContain(WEBHOOK_SECRET);
    expect(raw.rows[0]?.row).not.toContain('path-secret');
    expect((await targets.get('ops'))?.spec).toEqual(webhook('ops').spec);
    const [listed] = await targets.list();
    expect(listed).toMatchObject({ name: 'ops', type: 'Webhook', settings: { endpoint: 'https://hooks.example.com' } });
    expect(JSON.stringify(listed)).not.toMatch(/path-secret|whsec/);
    // A master key rotation seals it again under the new key, and it still opens.
    const rotated = new SecretBox(randomBytes(32), [masterKey]);
    const report = await resealStoredSecrets(pool, rotated);
    expect(report.find((column) => column.column === 'alert_targets.secrets')).toMatchObject({ resealed: 1 });
    expect((await new AlertTargetRepository(pool, new SecretBox(randomBytes(32))).get('ops').catch((error: Error) => error.message))).toEqual(
      expect.stringContaining('not configured'),
    );
  });

  it('makes one delivery per target an alert is meant for, in the statement that records it', async () => {
    await targets.put(webhook('every'), 24);
    await targets.put(webhook('failures', { alertKinds: ['Failure'] }), 24);
    await targets.put(webhook('hr-only', { replicationIds: [otherReplicationId] }), 24);
    const failure = await alerts.record({ replicationId, kind: 'Failure', message: 'boom', tableName: '[public].[orders]' });
    const reseed = await alerts.record({ replicationId, kind: 'Reseed', message: 'again' });
    const listed = await alerts.listByReplication(replicationId);
    const targetsOf = (alertId: string) => listed.find((alert) => alert.alertId === alertId)?.deliveries?.map((delivery) => delivery.target);
    expect(targetsOf(failure.alertId)).toEqual(['every', 'failures']);
    expect(targetsOf(reseed.alertId)).toEqual(['every']);
    expect(listed.every((alert) => alert.deliveries?.every((delivery) => delivery.state === 'Pending' && delivery.attempts === 0))).toBe(true);
  });

  it('claims each due delivery once for its lease, and settles it delivered, retried or given up', async () => {
    await targets.put(webhook('a'), 24);
    await targets.put(webhook('b'), 24);
    const alert = await alerts.record({ replicationId, kind: 'Failure', message: 'boom' });
    const [first, second] = await Promise.all([deliveries.claimDue(10, 30), deliveries.claimDue(10, 30)]);
    const claimed = [...(first ?? []), ...(second ?? [])];
    expect(claimed.map((delivery) => delivery.target.name).sort()).toEqual(['a', 'b']);
    expect(claimed[0]).toMatchObject({ attempt: 1, replicationName: 'sales', alert: { alertId: alert.alertId, kind: 'Failure', state: 'Active' } });
    expect(claimed[0]?.target.spec).toMatchObject({ type: 'Webhook', signingSecret: WEBHOOK_SECRET });
    expect(await deliveries.claimDue(10, 30)).toEqual([]);

    const now = new Date();
    await deliveries.settle(alert.alertId, 'a', { kind: 'delivered', at: now });
    await deliveries.settle(alert.alertId, 'b', { kind: 'retry', error: 'ECONNREFUSED', at: now, nextAttemptAt: new Date(now.getTime() - 1000) });
    const again = await deliveries.claimDue(10, 30);
    expect(again.map((delivery) => [delivery.target.name, delivery.attempt])).toEqual([['b', 2]]);
    await deliveries.settle(alert.alertId, 'b', { kind: 'failed', error: '401 refused', at: now });
    const shown = (await alerts.listByReplication(replicationId))[0]?.deliveries;
    expect(shown).toEqual([
      { target: 'a', state: 'Delivered', attempts: 1, deliveredAt: now.toISOString() },
      { target: 'b', state: 'Failed', attempts: 2, lastError: '401 refused' },
    ]);
    expect((await targets.list()).find((target) => target.name === 'b')?.deliveries).toMatchObject({ failed: 1, lastError: '401 refused' });

    // Replacing the target (fixed, perhaps) tries its recent failures again; deleting it drops what waits for it.
    await targets.put(webhook('b'), 24);
    expect((await deliveries.claimDue(10, 30)).map((delivery) => delivery.target.name)).toEqual(['b']);
    expect(await targets.delete('b')).toBe(true);
    expect(await targets.delete('b')).toBe(false);
    expect((await alerts.listByReplication(replicationId))[0]?.deliveries?.map((delivery) => delivery.target)).toEqual(['a']);
  });
});

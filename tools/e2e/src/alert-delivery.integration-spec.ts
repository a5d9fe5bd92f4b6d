import { verifyWebhookSignature } from '@svc/alert-delivery';
import { ADMIN_KEY, TEST_METRICS_TOKEN, TestStack, callSigned } from '@svc/system-testing';
import { startTestSmtp, startTestSns, startWebhookReceiver, waitUntil, type TestSmtp, type TestSns, type WebhookReceiver } from '@svc/testing';
import { Client } from 'pg';
import { liveCreateRequest } from './live-replication';
import { describeReplication } from './replication-api';

const SIGNING_SECRET = 'e2e-webhook-signing-secret-0123456789';
const SMTP_USER = { user: 'svc-alerts', pass: 'e2e-smtp-password-42' };
const SNS_SECRET = 'e2e-sns-secret-access-key-0123456789';
/** The fields docs/ALERTS.md documents, exactly; optional ones where this alert has them. */
const NOTICE_FIELDS = ['alertId', 'attempt', 'createdAt', 'deliveryId', 'kind', 'message', 'replicationId', 'replicationName', 'state', 'tableName'];
/** How long the webhook receiver is down: issue 41's "a receiver that is down for a minute". */
const OUTAGE_MS = 60_000;

/** A text/plain body as nodemailer sends long lines: quoted-printable (RFC 2045 §6.7). */
function quotedPrintableDecoded(body: string): string {
  return body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

async function run(url: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Issue 41 part 2: a replication whose table fails delivers its Failure alert to a signed webhook, an SNS topic (a
 * double of the SNS Query API) and an SMTP server, each checked on the receiving side; a webhook receiver that is down
 * for a minute gets it once it is back, and a dead target holds up neither the others nor the replication.
 */
describe('alerts delivered to webhook, SNS and e-mail targets', () => {
  let receiver: WebhookReceiver;
  let sns: TestSns;
  let smtp: TestSmtp;
  let stack: TestStack;
  let topicArn = '';
  let replicationId = '';

  const call = (operation: string, body: unknown) => callSigned(stack.baseUrl, operation, 'json', JSON.stringify(body), ADMIN_KEY);
  const failureOf = async () => (await describeReplication(stack, replicationId)).alerts.find((alert) => alert.kind === 'Failure');
  const deliveryTo = async (target: string) => (await failureOf())?.deliveries?.find((delivery) => delivery.target === target);

  beforeAll(async () => {
    [receiver, sns, smtp] = await Promise.all([startWebhookReceiver({ secret: SIGNING_SECRET }), startTestSns(), startTestSmtp({ users: [SMTP_USER] })]);
    topicArn = sns.createTopic('svc-alerts');
    stack = new TestStack({
      workers: ['extractor', 'stager', 'loader'],
      env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SNS_ENDPOINT: sns.endpoint, ALERT_RETRY_MAX_SECONDS: '5', ALERT_DELIVERY_POLL_MS: '200' },
    });
    await stack.start();
    // The table the replication fails on: the staging database already holds one of its name, which the service did not create.
    await run(stack.source.url, "CREATE TABLE public.customers (id int PRIMARY KEY, name text); INSERT INTO public.customers VALUES (1, 'Ann')");
    await run(stack.staging.url, "CREATE TABLE public.customers (id int PRIMARY KEY, secret text); INSERT INTO public.customers VALUES (1, 'the user''s own row')");
  }, 120000);

  afterAll(async () => {
    await stack?.stop();
    await Promise.allSettled([receiver?.stop(), sns?.stop(), smtp?.stop()]);
  }, 60000);

  it('delivers a Failure alert to every target, the webhook once its receiver is back after a minute', async () => {
    const targets = [
      { name: 'ops-webhook', type: 'Webhook', url: `${receiver.url}/hooks/svc`, signingSecret: SIGNING_SECRET, alertKinds: 'Failure, Reseed' },
      { name: 'ops-sns', type: 'Sns', topicArn, accessKey: 'AKIAE2EALERTS0000001', secretKey: SNS_SECRET },
      { name: 'ops-mail', type: 'Email', smtpUrl: `smtp://${SMTP_USER.user}:${SMTP_USER.pass}@127.0.0.1:${smtp.port}`, from: 'svc@example.com', to: 'oncall@example.com, dba@example.com' },
      // Narrowed to another kind: the Failure alert is not meant for it.
      { name: 'validation-only', type: 'Webhook', url: `${receiver.url}/validation`, signingSecret: SIGNING_SECRET, alertKinds: 'Validation' },
    ];
    for (const target of targets) expect(await call('PutAlertTarget', target)).toMatchObject({ status: 200 });

    await receiver.stop();
    const downAt = Date.now();
    const created = await call(
      'CreateWarehouseReplication',
      liveCreateRequest(stack, { sourceConnectionString: stack.source.url, bucketName: 'alert-delivery', bucketFolderName: 'files', tablesToInclude: '[public].[customers]' }),
    );
    expect(created).toMatchObject({ status: 200 });
    replicationId = (JSON.parse(created.body) as { replicationId: string }).replicationId;

    // SNS and e-mail get it while the webhook's receiver is down: one dead target holds up no other.
    await waitUntil(async () => sns.published.length > 0 && smtp.received.length > 0, 60000, 'the Failure alert on SNS and by e-mail');
    expect(Date.now() - downAt).toBeLessThan(OUTAGE_MS);
    const failure = await failureOf();
    if (failure === undefined) throw new Error('no Failure alert in Describe');
    // Named after its source database (Create has no name; Alter gives one).
    const { replicationName } = await describeReplication(stack, replicationId);

    const [published] = sns.published;
    const snsNotice = JSON.parse(published?.message ?? '{}') as Record<string, unknown>;
    expect(Object.keys(snsNotice).sort()).toEqual(NOTICE_FIELDS);
    expect(snsNotice).toMatchObject({
      alertId: failure.alertId,
      deliveryId: `${failure.alertId}/ops-sns`,
      replicationId,
      replicationName,
      kind: 'Failure',
      state: 'Active',
      tableName: '[public].[customers]',
      message: failure.message,
      attempt: 1,
    });
    expect(published).toMatchObject({ topicArn, callerAccessKeyId: 'AKIAE2EALERTS0000001', attributes: { kind: { dataType: 'String', value: 'Failure' } } });

    const [mail] = smtp.received;
    expect(mail).toMatchObject({ mailFrom: 'svc@example.com', rcptTo: ['oncall@example.com', 'dba@example.com'], authenticatedUser: SMTP_USER.user });
    expect(mail?.headers.get('subject')).toBe(`[svc-replication] Failure: ${replicationName}, [public].[customers]`);
    expect(mail?.headers.get('x-svc-alert-id')).toBe(failure.alertId);
    expect(quotedPrintableDecoded(mail?.body ?? '')).toContain(failure.message);

    // Describe shows each delivery; the webhook's is retrying, with why.
    expect(await deliveryTo('ops-sns')).toMatchObject({ state: 'Delivered', attempts: 1 });
    expect(await deliveryTo('ops-mail')).toMatchObject({ state: 'Delivered' });
    expect((await failureOf())?.deliveries?.map((delivery) => delivery.target).sort()).toEqual(['ops-mail', 'ops-sns', 'ops-webhook']);
    await waitUntil(async () => ((await deliveryTo('ops-webhook'))?.attempts ?? 0) >= 2, 30000, 'the webhook delivery to be retried');
    expect(await deliveryTo('ops-webhook')).toMatchObject({ state: 'Pending', lastError: expect.any(String) as unknown });

    // ListAlertTargets and /metrics show it too; no secret is answered.
    const listed = await call('ListAlertTargets', {});
    expect(listed.status).toBe(200);
    for (const secret of [SIGNING_SECRET, SMTP_USER.pass, SNS_SECRET, '/hooks/svc']) expect(listed.body).not.toContain(secret);
    const webhook = (JSON.parse(listed.body) as { alertTargets: { name: string; endpoint?: string; deliveries: { pending: number } }[] }).alertTargets.find(
      (target) => target.name === 'ops-webhook',
    );
    expect(webhook).toMatchObject({ endpoint: new URL(receiver.url).origin, deliveries: { pending: 1 } });
    const metrics = await fetch(`${stack.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } }).then((response) => response.text());
    expect(metrics).toContain('svc_alert_deliveries{target="ops-webhook",type="Webhook",state="Pending"} 1');
    expect(metrics).toContain('svc_alert_deliveries{target="ops-sns",type="Sns",state="Delivered"} 1');

    // Back after a minute: the alert arrives within the longest backoff, signed, exactly the documented fields.
    await new Promise((done) => setTimeout(done, Math.max(0, downAt + OUTAGE_MS - Date.now())));
    await receiver.restart();
    await waitUntil(async () => receiver.deliveries.some((delivery) => delivery.path === '/alerts/hooks/svc'), 30000, 'the webhook delivery after the receiver came back');
    const hook = receiver.deliveries.find((delivery) => delivery.path === '/alerts/hooks/svc');
    if (hook === undefined) throw new Error('no webhook delivery');
    expect(hook.signatureValid).toBe(true);
    const signature = String(hook.headers['svc-signature']);
    expect(verifyWebhookSignature(SIGNING_SECRET, signature, hook.body, Math.floor(Date.now() / 1000))).toBe(true);
    expect(verifyWebhookSignature('another-secret-of-enough-length', signature, hook.body, Math.floor(Date.now() / 1000))).toBe(false);
    expect(hook.headers['svc-delivery-id']).toBe(`${failure.alertId}/ops-webhook`);
    const hookNotice = JSON.parse(hook.body) as Record<string, unknown>;
    expect(Object.keys(hookNotice).sort()).toEqual(NOTICE_FIELDS);
    expect(hookNotice).toMatchObject({ alertId: failure.alertId, kind: 'Failure', deliveryId: `${failure.alertId}/ops-webhook` });
    expect(hookNotice['attempt']).toBeGreaterThan(1);
    await waitUntil(async () => (await deliveryTo('ops-webhook'))?.state === 'Delivered', 10000, 'the webhook delivery settled');
    expect(receiver.deliveries.filter((delivery) => delivery.path === '/alerts/validation')).toEqual([]);
    // Each target got the alert once (at least once: a retry could repeat it, never here).
    expect(sns.published).toHaveLength(1);
    expect(smtp.received).toHaveLength(1);
  }, 180000);

  it('refuses a target with a field of another type, a missing signing secret, and a metadata address, naming the field', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const response = await call('PutAlertTarget', body);
      expect(response.status).toBe(400);
      return response.body;
    };
    expect(await refused({ name: 'bad', type: 'Webhook', url: 'https://hooks.example.com/x', topicArn })).toContain('{TopicArn}: must not be given when Type is Webhook');
    expect(await refused({ name: 'bad', type: 'Webhook', url: 'https://hooks.example.com/x' })).toContain('{SigningSecret}: is required when Type is Webhook');
    expect(await refused({ name: 'bad', type: 'Webhook', url: 'http://169.254.169.254/latest', signingSecret: SIGNING_SECRET })).toContain('{Url}: names a cloud metadata address');
    expect(await refused({ name: 'bad', type: 'Sns', topicArn: 'arn:aws:sns:us-east-1:12:x' })).toContain('{TopicArn}:');
    const secretEchoed = await refused({ name: 'bad', type: 'Email', smtpUrl: 'ftp://user:smtp-secret-77@mail.example.com', from: 'a@example.com', to: 'b@example.com' });
    expect(secretEchoed).toContain('{SmtpUrl}:');
    expect(secretEchoed).not.toContain('smtp-secret-77');
    expect((await call('DeleteAlertTarget', { name: 'no-such-target' })).status).toBe(404);
  }, 60000);
});

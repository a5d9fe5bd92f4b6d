import { startSilentServer, startWebhookReceiver, type WebhookReceiver } from '@svc/testing';
import { AlertDeliveryError } from './alert-delivery-error';
import { createAlertSender, type AlertSender } from './alert-sender';
import type { WebhookTarget } from './alert-target';
import { sampleAlertNotice } from './testing';
import { verifyWebhookSignature } from './webhook-signature';

const SECRET = 'whsec_integration_secret';

describe('webhook delivery to a real HTTP receiver', () => {
  let receiver: WebhookReceiver;
  let sender: AlertSender;
  let target: WebhookTarget;

  beforeEach(async () => {
    receiver = await startWebhookReceiver({ secret: SECRET });
    sender = createAlertSender({ timeoutMs: 2000, userAgent: 'alert-tests/1' });
    target = { type: 'Webhook', url: receiver.url, signingSecret: SECRET };
  });

  afterEach(async () => {
    sender.close();
    await receiver.stop();
  });

  it('POSTs the notice as JSON with a signature the receiver verifies', async () => {
    const notice = sampleAlertNotice();
    await sender.send(target, notice);

    expect(receiver.deliveries).toHaveLength(1);
    const [delivery] = receiver.deliveries;
    expect(delivery).toMatchObject({ method: 'POST', path: '/alerts', signatureValid: true });
    expect(delivery?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'alert-tests/1',
      'svc-delivery-id': notice.deliveryId,
      'svc-alert-kind': 'Failure',
    });
    const body = delivery?.body ?? '';
    expect(verifyWebhookSignature(SECRET, String(delivery?.headers['svc-signature']), body, Math.floor(Date.now() / 1000))).toBe(true);
    expect(Object.keys(JSON.parse(body) as object)).toEqual([
      'deliveryId',
      'alertId',
      'replicationId',
      'replicationName',
      'kind',
      'state',
      'message',
      'tableName',
      'createdAt',
      'installation',
      'attempt',
    ]);
    expect(JSON.parse(body)).toEqual(notice);
  });

  it('leaves absent optional fields out of the body', async () => {
    await sender.send(target, sampleAlertNotice({ replicationName: undefined, tableName: undefined, installation: undefined }));
    expect(Object.keys(JSON.parse(receiver.deliveries[0]?.body ?? '{}') as object)).toEqual(['deliveryId', 'alertId', 'replicationId', 'kind', 'state', 'message', 'createdAt', 'attempt']);
  });

  it('keeps the delivery id across attempts, and signs each attempt with its own timestamp', async () => {
    let clock = new Date('2026-01-02T03:04:05Z').getTime();
    const stepping = createAlertSender({ now: () => new Date((clock += 60_000)) });
    try {
      await stepping.send(target, sampleAlertNotice({ attempt: 1 }));
      await stepping.send(target, sampleAlertNotice({ attempt: 2 }));
    } finally {
      stepping.close();
    }
    const [first, second] = receiver.deliveries;
    expect(first?.headers['svc-delivery-id']).toBe('alert-0001:ops-target');
    expect(second?.headers['svc-delivery-id']).toBe(first?.headers['svc-delivery-id']);
    expect(JSON.parse(second?.body ?? '{}')).toMatchObject({ attempt: 2 });
    const timestamps = receiver.deliveries.map((delivery) => /^t=(\d+),/.exec(String(delivery.headers['svc-signature']))?.[1]);
    expect(timestamps).toEqual([String(clock / 1000 - 60), String(clock / 1000)]);
    for (const delivery of receiver.deliveries) {
      const signedAt = Number(timestamps[receiver.deliveries.indexOf(delivery)]);
      expect(verifyWebhookSignature(SECRET, String(delivery.headers['svc-signature']), delivery.body, signedAt)).toBe(true);
    }
  });

  it.each([
    [500, true],
    [503, true],
    [429, true],
    [408, true],
    [400, false],
    [401, false],
    [410, false],
  ])('an answer %i is a failure, retryable %s', async (status, retryable) => {
    receiver.answerWith(status);
    const failure = await sender.send(target, sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AlertDeliveryError);
    expect(failure).toMatchObject({ retryable, message: expect.stringContaining(`HTTP ${status}`) as string });
    if (!retryable) expect((failure as Error).message).toContain('refused');
  });

  it('does not follow a redirect, and names where it pointed', async () => {
    const elsewhere = await startWebhookReceiver({ secret: SECRET });
    const redirecting = await startWebhookReceiver({ secret: SECRET, status: 307, location: `${elsewhere.url}?token=abc` });
    try {
      const failure = await sender.send({ ...target, url: redirecting.url }, sampleAlertNotice()).catch((error: unknown) => error);
      expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining(`Location ${new URL(elsewhere.url).origin}/…`) as string });
      expect((failure as Error).message).not.toContain('token');
      expect(elsewhere.deliveries).toHaveLength(0);
    } finally {
      await Promise.all([elsewhere.stop(), redirecting.stop()]);
    }
  });

  it('is retryable while the receiver is down, and delivers once it is back on the same URL', async () => {
    await receiver.stop();
    const failure = await sender.send(target, sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: true, message: expect.stringContaining('ECONNREFUSED') as string });

    await receiver.restart();
    await sender.send(target, sampleAlertNotice({ attempt: 2 }));
    expect(receiver.deliveries.map((delivery) => delivery.signatureValid)).toEqual([true]);
  });

  it('gives up on a receiver that does not answer within the timeout, retryably', async () => {
    const silent = await startSilentServer();
    const impatient = createAlertSender({ timeoutMs: 200 });
    try {
      const started = Date.now();
      const failure = await impatient.send({ ...target, url: `http://127.0.0.1:${silent.port}/alerts` }, sampleAlertNotice()).catch((error: unknown) => error);
      expect(failure).toMatchObject({ retryable: true, message: expect.stringContaining('no answer within 200 ms') as string });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      impatient.close();
      await silent.stop();
    }
  });

  it('never shows the secret, URL credentials or query in an error', async () => {
    receiver.answerWith(400);
    const failure = await sender.send({ ...target, url: `${receiver.url}?token=sekret-query` }, sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining(`${new URL(receiver.url).origin}/…`) as string });
    expect((failure as Error).message).not.toMatch(/sekret-query|whsec_integration_secret|\/alerts/);

    const withCredentials = receiver.url.replace('http://', 'http://user:pass-word@');
    const refused = await sender.send({ ...target, url: withCredentials }, sampleAlertNotice()).catch((error: unknown) => error);
    expect(refused).toMatchObject({ retryable: false, message: expect.stringContaining('credentials') as string });
    expect((refused as Error).message).not.toContain('pass-word');
  });
});

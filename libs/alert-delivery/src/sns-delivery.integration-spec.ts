import { startTestSns, type TestSns } from '@svc/testing';
import { AlertDeliveryError } from './alert-delivery-error';
import { createAlertSender, type AlertSender } from './alert-sender';
import type { SnsTarget } from './alert-target';
import { sampleAlertNotice } from './testing';

const KEYS = { accessKeyId: 'AKIAALERTTESTS000001', secretAccessKey: 'alert-tests-secret-access-key' };

describe('SNS delivery to a double of the SNS Query API', () => {
  let sns: TestSns;
  let sender: AlertSender;

  beforeEach(async () => {
    sns = await startTestSns();
    sender = createAlertSender({ snsEndpoint: sns.endpoint, timeoutMs: 2000 });
  });

  afterEach(async () => {
    sender.close();
    await sns.stop();
  });

  const topic = (topicArn: string): SnsTarget => ({ type: 'Sns', topicArn, ...KEYS });

  it('publishes the JSON notice with a subject and String attributes, signed with the target’s keys', async () => {
    const arn = sns.createTopic('replication-alerts');
    const notice = sampleAlertNotice();
    await sender.send(topic(arn), notice);

    expect(sns.published).toHaveLength(1);
    const [message] = sns.published;
    expect(message).toMatchObject({
      topicArn: arn,
      subject: '[svc-replication] Failure: orders to warehouse, [dbo].[orders]',
      attributes: {
        kind: { dataType: 'String', value: 'Failure' },
        state: { dataType: 'String', value: 'Active' },
        replicationId: { dataType: 'String', value: 'rep-orders' },
      },
      callerAccessKeyId: KEYS.accessKeyId,
    });
    expect(message).not.toHaveProperty('messageGroupId');
    expect(JSON.parse(message?.message ?? '')).toEqual(notice);
  });

  it('groups by replication and deduplicates retries by delivery id on a FIFO topic', async () => {
    const arn = sns.createTopic('replication-alerts', { fifo: true });
    await sender.send(topic(arn), sampleAlertNotice({ attempt: 1 }));
    await sender.send(topic(arn), sampleAlertNotice({ attempt: 2 }));
    await sender.send(topic(arn), sampleAlertNotice({ deliveryId: 'alert-0002:ops-target', alertId: 'alert-0002' }));

    expect(sns.calls.filter((call) => call.action === 'Publish' && call.status === 200)).toHaveLength(3);
    expect(sns.published.map(({ messageGroupId, messageDeduplicationId }) => ({ messageGroupId, messageDeduplicationId }))).toEqual([
      { messageGroupId: 'rep-orders', messageDeduplicationId: 'alert-0001:ops-target' },
      { messageGroupId: 'rep-orders', messageDeduplicationId: 'alert-0002:ops-target' },
    ]);
  });

  it('a subject too long for SNS is shortened, not refused', async () => {
    const arn = sns.createTopic('replication-alerts');
    await sender.send(topic(arn), sampleAlertNotice({ replicationName: 'n'.repeat(300) }));
    expect(sns.published[0]?.subject).toHaveLength(99);
  });

  it('an unknown topic is a failure not worth retrying', async () => {
    const failure = await sender.send(topic('arn:aws:sns:us-east-1:123456789012:no-such-topic'), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AlertDeliveryError);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining('NotFound (HTTP 404)') as string });
    expect((failure as Error).message).not.toContain(KEYS.secretAccessKey);
  });

  it('throttling and internal errors are retryable', async () => {
    const arn = sns.createTopic('replication-alerts');
    sns.failNextPublishes(1, { status: 429, code: 'Throttled', message: 'Rate exceeded' });
    sns.failNextPublishes(1, { status: 500, code: 'InternalError' });
    const throttled = await sender.send(topic(arn), sampleAlertNotice()).catch((error: unknown) => error);
    const failing = await sender.send(topic(arn), sampleAlertNotice()).catch((error: unknown) => error);
    expect([throttled, failing]).toMatchObject([{ retryable: true }, { retryable: true }]);
    expect(sns.published).toHaveLength(0);
  });

  it('an authorization error is not retryable', async () => {
    const arn = sns.createTopic('replication-alerts');
    sns.failNextPublishes(1, { status: 403, code: 'AuthorizationError', message: 'User is not authorized to perform: SNS:Publish' });
    const failure = await sender.send(topic(arn), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: false, message: expect.stringContaining('AuthorizationError') as string });
  });

  it('is retryable while SNS cannot be reached, and publishes once it is back', async () => {
    const arn = sns.createTopic('replication-alerts');
    await sns.stop();
    const failure = await sender.send(topic(arn), sampleAlertNotice()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ retryable: true, message: expect.stringContaining('ECONNREFUSED') as string });

    await sns.restart();
    await sender.send(topic(arn), sampleAlertNotice({ attempt: 2 }));
    expect(sns.published).toHaveLength(1);
  });

  it('refuses a malformed ARN and half a key pair before calling SNS', async () => {
    const malformed = await sender.send({ type: 'Sns', topicArn: 'replication-alerts' }, sampleAlertNotice()).catch((error: unknown) => error);
    const halfKeys = await sender.send({ type: 'Sns', topicArn: sns.createTopic('t'), accessKeyId: KEYS.accessKeyId }, sampleAlertNotice()).catch((error: unknown) => error);
    expect([malformed, halfKeys]).toMatchObject([{ retryable: false }, { retryable: false }]);
    expect(sns.calls).toHaveLength(0);
  });
});

describe('the SNS double', () => {
  let sns: TestSns;

  beforeAll(async () => {
    sns = await startTestSns();
  });

  afterAll(() => sns.stop());

  async function post(fields: Record<string, string>, signed = true): Promise<{ status: number; text: string }> {
    const response = await fetch(sns.endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(signed && { authorization: 'AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20260102/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=00' }),
      },
      body: new URLSearchParams({ Action: 'Publish', Version: '2010-03-31', ...fields }).toString(),
    });
    return { status: response.status, text: await response.text() };
  }

  it.each([
    ['an unsigned request', {}, false, 403, 'MissingAuthenticationToken'],
    ['a subject of 100 characters', { Subject: 's'.repeat(100) }, true, 400, 'InvalidParameter'],
    ['a subject with a line break', { Subject: 'two\nlines' }, true, 400, 'InvalidParameter'],
    ['a message over 256 KiB', { Message: 'm'.repeat(262_145) }, true, 400, 'InvalidParameter'],
    ['a FIFO message without MessageGroupId', { fifo: 'yes', MessageDeduplicationId: 'd-1' }, true, 400, 'InvalidParameter'],
    ['a FIFO message without MessageDeduplicationId', { fifo: 'yes', MessageGroupId: 'g' }, true, 400, 'InvalidParameter'],
    ['MessageDeduplicationId on a standard topic', { MessageDeduplicationId: 'd-1' }, true, 400, 'InvalidParameter'],
  ])('refuses %s', async (_case, { fifo, ...fields }: Record<string, string>, signed, status, code) => {
    const topicArn = sns.createTopic(fifo === undefined ? 'standard' : 'ordered', { fifo: fifo !== undefined });
    const answer = await post({ TopicArn: topicArn, Message: 'hello', ...fields }, signed);
    expect(answer.status).toBe(status);
    expect(answer.text).toContain(`<Code>${code}</Code>`);
  });

  it('answers a FIFO duplicate with the first MessageId and SequenceNumber, recording it once', async () => {
    const topicArn = sns.createTopic('dedup', { fifo: true });
    const before = sns.published.length;
    const first = await post({ TopicArn: topicArn, Message: 'one', MessageGroupId: 'g', MessageDeduplicationId: 'same' });
    const again = await post({ TopicArn: topicArn, Message: 'two', MessageGroupId: 'g', MessageDeduplicationId: 'same' });
    expect(first.status).toBe(200);
    expect(first.text).toMatch(/<SequenceNumber>\d+<\/SequenceNumber>/);
    expect(again.text.replace(/<RequestId>.*<\/RequestId>/, '')).toBe(first.text.replace(/<RequestId>.*<\/RequestId>/, ''));
    expect(sns.published.length - before).toBe(1);
  });
});

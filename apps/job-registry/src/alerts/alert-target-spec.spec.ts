import type { PutAlertTargetRequest } from '@svc/contracts';
import { afterFailure, backoffMs } from './delivery-backoff';
import { targetSpecOf } from './alert-target-spec';

const webhook: PutAlertTargetRequest = { name: 'ops', type: 'Webhook', url: 'https://hooks.example.com/x' };

describe('targetSpecOf', () => {
  it("refuses another type's fields, naming each", () => {
    expect(targetSpecOf({ ...webhook, topicArn: 'arn:aws:sns:us-east-1:123456789012:t', from: 'a@example.com' }, null)).toEqual({
      problems: ['{TopicArn}: must not be given when Type is Webhook', '{From}: must not be given when Type is Webhook'],
    });
  });

  it('needs a signing secret for a new webhook and keeps the stored one when left out', () => {
    expect(targetSpecOf(webhook, null)).toEqual({ problems: [expect.stringContaining('{SigningSecret}: is required when Type is Webhook') as unknown] });
    const stored = { type: 'Webhook' as const, url: 'https://old.example.com/y', signingSecret: 'kept-secret-0123456789' };
    expect(targetSpecOf(webhook, stored)).toEqual({ spec: { type: 'Webhook', url: 'https://hooks.example.com/x', signingSecret: 'kept-secret-0123456789' } });
    expect(targetSpecOf(webhook, { type: 'Email', smtpUrl: 'smtp://h', from: 'a@example.com', to: ['b@example.com'] })).toHaveProperty('problems');
  });

  it('keeps an SNS secret only for the same access key, and wants both or neither', () => {
    const sns: PutAlertTargetRequest = { name: 't', type: 'Sns', topicArn: 'arn:aws:sns:us-east-1:123456789012:t' };
    const stored = { type: 'Sns' as const, topicArn: sns.topicArn ?? '', accessKeyId: 'AKIAOLD', secretAccessKey: 'old-secret' };
    expect(targetSpecOf({ ...sns, accessKey: 'AKIAOLD' }, stored)).toEqual({ spec: { ...stored } });
    expect(targetSpecOf({ ...sns, accessKey: 'AKIANEW' }, stored)).toEqual({ problems: [expect.stringContaining('{SecretKey}: give AccessKey and SecretKey together') as unknown] });
    expect(targetSpecOf(sns, stored)).toEqual({ spec: { type: 'Sns', topicArn: sns.topicArn } });
  });
});

describe('delivery backoff', () => {
  const settings = { maxBackoffMs: 60_000, giveUpMs: 24 * 3_600_000 };

  it('doubles from 1 s up to its maximum', () => {
    expect([1, 2, 3, 6, 7, 8, 40].map((attempt) => backoffMs(attempt, settings.maxBackoffMs))).toEqual([1000, 2000, 4000, 32000, 60000, 60000, 60000]);
  });

  it('retries a retryable failure until the give-up window ends, and never a refusal', () => {
    const raised = new Date('2026-11-30T00:00:00Z');
    expect(afterFailure({ retryable: true }, raised, 3, new Date('2026-11-30T01:00:00Z'), settings)).toEqual({ retryAt: new Date('2026-11-30T01:00:04Z') });
    expect(afterFailure({ retryable: true }, raised, 30, new Date('2026-11-30T23:59:30Z'), settings)).toEqual({ giveUp: 'still failing 24 h after the alert' });
    expect(afterFailure({ retryable: false }, raised, 1, raised, settings)).toEqual({ giveUp: 'refused by the target' });
  });
});

import type { AlertNotice } from './alert-notice';
import { fifoToken, parseTopicArn, snsPublishInput, snsSubject } from './sns-publish-input';

const notice: AlertNotice = {
  deliveryId: 'alert-7:ops-sns',
  alertId: 'alert-7',
  replicationId: 'rep-1',
  replicationName: 'orders to warehouse',
  kind: 'Failure',
  state: 'Active',
  message: 'the load failed',
  tableName: '[dbo].[orders]',
  createdAt: '2026-01-02T03:04:05.000Z',
  attempt: 1,
};

describe('parseTopicArn', () => {
  it.each([
    ['arn:aws:sns:eu-west-1:123456789012:alerts', { region: 'eu-west-1', fifo: false }],
    ['arn:aws:sns:us-east-1:123456789012:alerts.fifo', { region: 'us-east-1', fifo: true }],
    ['arn:aws-cn:sns:cn-north-1:123456789012:alerts', { region: 'cn-north-1', fifo: false }],
    ['arn:aws-us-gov:sns:us-gov-west-1:123456789012:a_b-c', { region: 'us-gov-west-1', fifo: false }],
    ['arn:aws:sqs:eu-west-1:123456789012:alerts', null],
    ['arn:aws:sns:eu-west-1:1234:alerts', null],
    ['arn:aws:sns::123456789012:alerts', null],
    ['alerts', null],
  ])('%s', (arn, parsed) => {
    expect(parseTopicArn(arn)).toEqual(parsed);
  });
});

describe('snsSubject', () => {
  it('is the headline', () => {
    expect(snsSubject(notice)).toBe('[svc-replication] Failure: orders to warehouse, [dbo].[orders]');
  });

  it('is printable ASCII on one line, less than 100 characters', () => {
    const subject = snsSubject({ ...notice, replicationName: `Bestellungen\r\nüber ${'x'.repeat(200)}` });
    expect(subject).toMatch(/^[\x20-\x7e]{1,99}$/);
    expect(subject).toContain('Bestellungen ?ber');
    expect(subject.endsWith('...')).toBe(true);
  });
});

describe('fifoToken', () => {
  it('keeps a value SNS accepts', () => {
    expect(fifoToken('alert-7:ops/sns#1')).toBe('alert-7:ops/sns#1');
  });

  it.each([['ünïcode'], ['with space'], ['x'.repeat(129)], ['']])('replaces %j by its SHA-256, the same every time', (value) => {
    expect(fifoToken(value)).toMatch(/^[0-9a-f]{64}$/);
    expect(fifoToken(value)).toBe(fifoToken(value));
  });
});

describe('snsPublishInput', () => {
  it('carries the JSON notice and String attributes; no FIFO fields on a standard topic', () => {
    const input = snsPublishInput('arn:aws:sns:eu-west-1:123456789012:alerts', false, notice);
    expect(JSON.parse(input.Message ?? '')).toEqual(notice);
    expect(input.MessageAttributes).toEqual({
      kind: { DataType: 'String', StringValue: 'Failure' },
      state: { DataType: 'String', StringValue: 'Active' },
      replicationId: { DataType: 'String', StringValue: 'rep-1' },
    });
    expect(input).not.toHaveProperty('MessageGroupId');
    expect(input).not.toHaveProperty('MessageDeduplicationId');
  });

  it('groups by replication and deduplicates by delivery id on a FIFO topic', () => {
    const input = snsPublishInput('arn:aws:sns:eu-west-1:123456789012:alerts.fifo', true, notice);
    expect(input).toMatchObject({ MessageGroupId: 'rep-1', MessageDeduplicationId: 'alert-7:ops-sns' });
  });
});

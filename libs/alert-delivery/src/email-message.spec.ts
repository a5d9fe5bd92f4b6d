import type { AlertNotice } from './alert-notice';
import { emailMessage } from './email-message';

const notice: AlertNotice = {
  deliveryId: 'alert-7:ops-mail',
  alertId: 'alert-7',
  replicationId: 'rep-1',
  replicationName: 'orders',
  kind: 'Failure',
  state: 'Active',
  message: 'the load failed',
  tableName: '[dbo].[orders]',
  createdAt: '2026-01-02T03:04:05.000Z',
  installation: 'eu',
  attempt: 2,
};

describe('emailMessage', () => {
  it('has the subject, headers and a plain-text list of the fields', () => {
    const message = emailMessage(notice);
    expect(message.subject).toBe('[svc-replication] Failure: orders, [dbo].[orders]');
    expect(message.messageId).toBe('<alert-7-ops-mail@svc-replication>');
    expect(message.headers).toEqual({ 'X-Svc-Alert-Id': 'alert-7', 'X-Svc-Delivery-Id': 'alert-7:ops-mail', 'Auto-Submitted': 'auto-generated' });
    expect(message.text).toBe(
      [
        'the load failed',
        '',
        'Kind:         Failure',
        'State:        Active',
        'Replication:  orders (rep-1)',
        'Table:        [dbo].[orders]',
        'Raised at:    2026-01-02T03:04:05.000Z',
        'Installation: eu',
        'Alert id:     alert-7',
        'Delivery id:  alert-7:ops-mail',
        'Attempt:      2',
        '',
      ].join('\n'),
    );
  });

  it('names the replication by id without a name, and leaves absent fields out', () => {
    const message = emailMessage({ ...notice, replicationName: undefined, tableName: undefined, installation: undefined });
    expect(message.subject).toBe('[svc-replication] Failure: rep-1');
    expect(message.text).not.toMatch(/Table:|Installation:/);
  });

  it('keeps the subject on one line', () => {
    expect(emailMessage({ ...notice, replicationName: 'a\r\nBcc: x@example.com' }).subject).toBe('[svc-replication] Failure: a Bcc: x@example.com, [dbo].[orders]');
  });

  it('makes a Message-ID of any delivery id, the same for the same id', () => {
    const odd = { ...notice, deliveryId: '<a b>@c..d.' };
    expect(emailMessage(odd).messageId).toMatch(/^<[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@svc-replication>$/);
    expect(emailMessage(odd).messageId).toBe(emailMessage(odd).messageId);
  });
});

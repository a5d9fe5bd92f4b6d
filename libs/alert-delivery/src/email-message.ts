import { noticeHeadline, type AlertNotice } from './alert-notice';

export interface EmailMessage {
  subject: string;
  text: string;
  messageId: string;
  headers: Record<string, string>;
}

/** What RFC 5322 allows in the left part of a Message-ID (dot-atom-text); anything else becomes '-'. */
const NOT_ATEXT = /[^A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]/g;

/**
 * The e-mail of a notice. Message-ID `<deliveryId@svc-replication>`: every retry of a delivery carries the same one, so
 * mail systems that deduplicate on it (and people reading threads) see one message. Auto-Submitted (RFC 3834) keeps
 * vacation responders from answering.
 */
export function emailMessage(notice: AlertNotice): EmailMessage {
  const rows: [string, string | undefined][] = [
    ['Kind', notice.kind],
    ['State', notice.state],
    ['Replication', notice.replicationName === undefined ? notice.replicationId : `${notice.replicationName} (${notice.replicationId})`],
    ['Table', notice.tableName],
    ['Raised at', notice.createdAt],
    ['Installation', notice.installation],
    ['Alert id', notice.alertId],
    ['Delivery id', notice.deliveryId],
    ['Attempt', String(notice.attempt)],
  ];
  const listed = rows.filter((row): row is [string, string] => row[1] !== undefined).map(([label, value]) => `${`${label}:`.padEnd(14)}${value}`);
  const messageIdLeft = notice.deliveryId.replace(NOT_ATEXT, '-').replace(/^\.+|\.+$/g, '').replace(/\.{2,}/g, '.') || 'alert';
  return {
    subject: `[svc-replication] ${noticeHeadline(notice)}`.replace(/[\r\n]+/g, ' '),
    text: `${notice.message}\n\n${listed.join('\n')}\n`,
    messageId: `<${messageIdLeft}@svc-replication>`,
    headers: {
      'X-Svc-Alert-Id': notice.alertId,
      'X-Svc-Delivery-Id': notice.deliveryId,
      'Auto-Submitted': 'auto-generated',
    },
  };
}

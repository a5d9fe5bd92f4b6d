/** What every channel carries (documented field by field in docs/ALERTS.md). */
export interface AlertNotice {
  /** Idempotency key: the same alert to the same target always carries the same id, retries included. */
  deliveryId: string;
  alertId: string;
  replicationId: string;
  replicationName?: string;
  kind: string;
  state: 'Active' | 'Acknowledged' | 'Resolved';
  message: string;
  tableName?: string;
  /** ISO 8601: when the alert was raised. */
  createdAt: string;
  /** SVC_INSTALLATION; absent for the default installation. */
  installation?: string;
  /** 1 for the first try. */
  attempt: number;
}

/**
 * The notice as JSON, field names and order fixed (receivers and docs/ALERTS.md rely on them); absent optional fields
 * are left out rather than written as null.
 */
export function noticeJson(notice: AlertNotice): string {
  const fields = {
    deliveryId: notice.deliveryId,
    alertId: notice.alertId,
    replicationId: notice.replicationId,
    ...(notice.replicationName !== undefined && { replicationName: notice.replicationName }),
    kind: notice.kind,
    state: notice.state,
    message: notice.message,
    ...(notice.tableName !== undefined && { tableName: notice.tableName }),
    createdAt: notice.createdAt,
    ...(notice.installation !== undefined && { installation: notice.installation }),
    attempt: notice.attempt,
  };
  return JSON.stringify(fields);
}

/** `<kind>: <replication name or id>[, <table>]`: what a subject line says about the alert. */
export function noticeHeadline(notice: AlertNotice): string {
  const replication = notice.replicationName ?? notice.replicationId;
  return `${notice.kind}: ${replication}${notice.tableName === undefined ? '' : `, ${notice.tableName}`}`;
}

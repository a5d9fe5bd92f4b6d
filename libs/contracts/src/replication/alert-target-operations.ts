import type { AlertRecord } from './replication-status';

/**
 * Where alerts are delivered (issue 41): service-wide targets, each optionally narrowed to some alert kinds and some
 * replications. Their secrets (a webhook's signing secret, SNS keys, the SMTP URL with its password) are sealed like
 * every other and never answered.
 */
export const ALERT_TARGET_OPERATIONS = ['PutAlertTarget', 'ListAlertTargets', 'DeleteAlertTarget'] as const;
export type AlertTargetOperationName = (typeof ALERT_TARGET_OPERATIONS)[number];

export const ALERT_TARGET_TYPES = ['Webhook', 'Sns', 'Email'] as const;
export type AlertTargetType = (typeof ALERT_TARGET_TYPES)[number];

export const ALERT_KINDS = ['SchemaChange', 'Reseed', 'Failure', 'RetentionDanger', 'Validation', 'TableAdded'] as const satisfies readonly AlertRecord['kind'][];

/** Creates a target, or replaces the one of that name (a secret left out is kept when the type is unchanged). */
export interface PutAlertTargetRequest {
  name: string;
  type: AlertTargetType;
  /** Webhook: the receiver's URL (https). */
  url?: string;
  /** Webhook: the HMAC key of the Svc-Signature header. */
  signingSecret?: string;
  /** Sns: the topic's ARN (its region is the ARN's). */
  topicArn?: string;
  /** Sns: keys to publish with; the service's own AWS identity when absent. */
  accessKey?: string;
  secretKey?: string;
  /** Email: smtp://user:pass@host:587 (STARTTLS) or smtps://…:465. */
  smtpUrl?: string;
  from?: string;
  /** Email: recipients. */
  to?: string[];
  /** Only these kinds; every kind when absent. */
  alertKinds?: AlertRecord['kind'][];
  /** Only alerts of these replications; every replication when absent. */
  replicationIds?: string[];
}

export interface AlertTargetNameRequest {
  name: string;
}

/** How a target's deliveries went: what Describe shows per alert, summed per target. */
export interface AlertTargetDeliveries {
  delivered: number;
  /** Waiting for their first attempt or retrying after a failure. */
  pending: number;
  /** Given up: refused by the target, or still failing when the retry window ended. */
  failed: number;
  lastDeliveredAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

/** A target as ListAlertTargets shows it: never a secret, a URL only by its scheme and host. */
export interface AlertTargetDescription {
  name: string;
  type: AlertTargetType;
  /** Webhook: scheme and host of the URL (its path and query may be a secret, as a Slack hook's is). */
  endpoint?: string;
  topicArn?: string;
  /** Email: the SMTP server's host and port, without credentials. */
  smtpServer?: string;
  from?: string;
  to?: string[];
  alertKinds: AlertRecord['kind'][] | null;
  replicationIds: string[] | null;
  createdAt: string;
  updatedAt: string;
  deliveries: AlertTargetDeliveries;
}

export interface ListAlertTargetsResponse {
  alertTargets: AlertTargetDescription[];
}

export const ALERT_DELIVERY_STATES = ['Pending', 'Delivered', 'Failed'] as const;
export type AlertDeliveryState = (typeof ALERT_DELIVERY_STATES)[number];

/** One alert's delivery to one target, as Describe shows it with the alert. */
export interface AlertDelivery {
  target: string;
  state: AlertDeliveryState;
  attempts: number;
  deliveredAt?: string;
  /** The last failure (retrying while Pending; why it gave up when Failed). */
  lastError?: string;
  /** When a Pending delivery tries again. */
  nextAttemptAt?: string;
}

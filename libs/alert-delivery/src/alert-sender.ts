import type { AlertNotice } from './alert-notice';
import type { AlertTargetSpec } from './alert-target';
import { sendEmail } from './email-channel';
import { SnsChannel } from './sns-channel';
import { sendWebhook } from './webhook-channel';

export interface AlertSenderSettings {
  /** SNS_ENDPOINT: a VPC endpoint or a test double; absent → each topic region's public endpoint. */
  snsEndpoint?: string;
  /** Bounds each wait of one attempt (connect, answer, each SMTP reply); 10000 by default. */
  timeoutMs?: number;
  /** The clock of webhook signatures and e-mail Date headers. */
  now?: () => Date;
  /** The webhook User-Agent; `svc-replication-alerts/1` by default. */
  userAgent?: string;
  /** PEM of a private CA an SMTP relay's certificate may chain to, beside Node's public roots. */
  smtpTrustedCaPem?: string;
}

/**
 * One delivery attempt of one notice to one target. Rejects with AlertDeliveryError, whose `retryable` says whether a
 * later attempt may succeed; retrying, backing off and recording are the caller's.
 */
export interface AlertSender {
  send(target: AlertTargetSpec, notice: AlertNotice): Promise<void>;
  /** Frees the SNS clients (their sockets); the sender is not to be used afterwards. */
  close(): void;
}

export const DEFAULT_ALERT_TIMEOUT_MS = 10_000;
export const DEFAULT_ALERT_USER_AGENT = 'svc-replication-alerts/1';

export function createAlertSender(settings: AlertSenderSettings): AlertSender {
  const timeoutMs = settings.timeoutMs ?? DEFAULT_ALERT_TIMEOUT_MS;
  const now = settings.now ?? (() => new Date());
  const sns = new SnsChannel({ timeoutMs, ...(settings.snsEndpoint !== undefined && { endpoint: settings.snsEndpoint }) });
  return {
    send(target, notice) {
      switch (target.type) {
        case 'Webhook':
          return sendWebhook(target, notice, { timeoutMs, now, userAgent: settings.userAgent ?? DEFAULT_ALERT_USER_AGENT });
        case 'Sns':
          return sns.send(target, notice);
        case 'Email':
          return sendEmail(target, notice, { timeoutMs, now, ...(settings.smtpTrustedCaPem !== undefined && { trustedCaPem: settings.smtpTrustedCaPem }) });
        default:
          return unreachable(target);
      }
    },
    close: () => sns.close(),
  };
}

function unreachable(target: never): never {
  throw new Error(`unknown alert target type ${JSON.stringify((target as { type?: unknown }).type)}`);
}

import { AlertDeliveryError } from './alert-delivery-error';
import { errorFields } from './error-fields';
import { noticeJson, type AlertNotice } from './alert-notice';
import type { WebhookTarget } from './alert-target';
import { redactSecrets, urlForMessages } from './redaction';
import { SIGNATURE_HEADER, signWebhookBody } from './webhook-signature';

export interface WebhookSendOptions {
  timeoutMs: number;
  userAgent: string;
  now: () => Date;
}

/** Statuses that say "later" rather than "no" (RFC 9110 §15.5.9 408, RFC 8470 425, RFC 6585 429). */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 425, 429]);

/** POSTs the notice as JSON, signed; resolves on a 2xx, throws AlertDeliveryError otherwise. Never follows a redirect. */
export async function sendWebhook(target: WebhookTarget, notice: AlertNotice, options: WebhookSendOptions): Promise<void> {
  const shownUrl = urlForMessages(target.url);
  const refusal = unsendableUrl(target.url);
  if (refusal !== null) throw new AlertDeliveryError(`webhook URL ${shownUrl} ${refusal}`, false);
  const body = noticeJson(notice);
  const timestampSeconds = Math.floor(options.now().getTime() / 1000);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': options.userAgent,
        [SIGNATURE_HEADER]: signWebhookBody(target.signingSecret, body, timestampSeconds),
        'Svc-Delivery-Id': notice.deliveryId,
        'Svc-Alert-Kind': notice.kind,
      },
      body,
    });
  } catch (error) {
    throw new AlertDeliveryError(redactSecrets(`webhook ${shownUrl}: ${fetchFailure(error, options.timeoutMs)}`, [target.signingSecret]), true);
  }
  // The answer's body is not read: only the status counts, and the connection is freed at once.
  await response.body?.cancel().catch(() => undefined);
  const failure = classifyWebhookStatus(response.status, response.headers.get('location'));
  if (failure !== null) throw new AlertDeliveryError(`webhook ${shownUrl}: ${failure.reason}`, failure.retryable);
}

/** Null for a delivered notice (2xx); otherwise why not and whether a later attempt may succeed. */
export function classifyWebhookStatus(status: number, location: string | null): { reason: string; retryable: boolean } | null {
  if (status >= 200 && status <= 299) return null;
  if (status >= 300 && status <= 399) {
    const where = location === null ? 'no Location' : `Location ${urlForMessages(location)}`;
    return { reason: `the receiver redirected (HTTP ${status}, ${where}); redirects are not followed: configure the final URL`, retryable: false };
  }
  if (status >= 500 || RETRYABLE_CLIENT_STATUSES.has(status)) return { reason: `the receiver answered HTTP ${status}; a later attempt may succeed`, retryable: true };
  return { reason: `the receiver refused the notice with HTTP ${status}`, retryable: false };
}

/** Why a URL cannot be POSTed to at all (fetch refuses URLs with credentials, and schemes other than HTTP). */
function unsendableUrl(url: string): string | null {
  if (!URL.canParse(url)) return 'cannot be parsed';
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `has the scheme ${parsed.protocol} (only https: and http: can be posted to)`;
  if (parsed.username !== '' || parsed.password !== '') return 'contains credentials, which fetch refuses to send';
  return null;
}

/** Why fetch threw: a timeout, or the network error under undici's "fetch failed". */
function fetchFailure(error: unknown, timeoutMs: number): string {
  const thrown = errorFields(error);
  if (thrown.name === 'TimeoutError' || thrown.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  const cause = thrown.cause === undefined ? undefined : errorFields(thrown.cause);
  if (cause?.code !== undefined) return `could not deliver (${cause.code})`;
  return `could not deliver (${cause?.message ?? thrown.message})`;
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries a webhook's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'Svc-Signature';
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * The Svc-Signature header value for `body` sent at `timestampSeconds`: the scheme of Stripe's webhooks
 * (https://docs.stripe.com/webhooks#verify-manually), the timestamp signed with the body so a captured delivery cannot
 * be replayed later.
 */
export function signWebhookBody(secret: string, body: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmacHex(secret, timestampSeconds, body)}`;
}

/**
 * For receivers: whether `header` is a valid signature of `body` (the raw bytes received, before any JSON parsing) made
 * with `secret` no more than `toleranceSeconds` from `nowSeconds`. Any one of several v1 entries may match (a
 * receiver's secret rotation). Compares in constant time.
 */
export function verifyWebhookSignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds: number,
  toleranceSeconds = DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  const entries = header.split(',').map((entry) => entry.trim().split('='));
  const timestamps = entries.filter(([key]) => key === 't').map(([, value]) => value ?? '');
  const signatures = entries.filter(([key, value]) => key === 'v1' && value !== undefined && HEX_SHA256.test(value)).map(([, value]) => value ?? '');
  const [timestampText] = timestamps;
  if (timestamps.length !== 1 || timestampText === undefined || !/^\d{1,12}$/.test(timestampText) || signatures.length === 0) return false;
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  // Every candidate is compared, so the time taken does not tell which one matched.
  return signatures.map((signature) => timingSafeEqual(expected, Buffer.from(signature, 'hex'))).includes(true);
}

function hmacHex(secret: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex');
}

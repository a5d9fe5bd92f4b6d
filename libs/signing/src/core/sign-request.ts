import { formatAuthorization } from './authorization';
import { canonicalRequest, normalizeSignedHeaders, type RequestToSign } from './canonical-request';
import type { Digesting } from './digesting';
import { calculateSignature, deriveSigningKey, sha256Hex, stringToSign, type SigningCredentials } from './signature';
import { formatSigningDate } from './signing-date';
import type { SigningScheme } from './signing-scheme';

export interface SignRequestOptions {
  region: string;
  service: string;
  now: Date;
  /** Random text for the scheme's nonce header, which is then signed too; only for a scheme that has one. */
  nonce?: string;
}

const SIGNED_WHEN_PRESENT = ['content-length', 'content-type', 'host'];

/**
 * Adds the date header (from `now`), the content-hash header and Authorization; returns the complete header
 * set to send, with lower-case names. Signs content-length, content-type, host, the hash and date headers when
 * present, and the nonce header when a nonce is given. Any Authorization, date, content-hash or nonce header
 * already in `request.headers` is replaced. Throws when there is no host header: a request without one could
 * never be verified; and when a nonce is given for a scheme without a nonce header. A browser sends Host and
 * Content-Length itself, so there `request.headers` must hold exactly the values it will send.
 */
export function* signRequest(
  scheme: SigningScheme,
  request: RequestToSign,
  credentials: SigningCredentials,
  options: SignRequestOptions,
): Digesting<Record<string, string>> {
  const nonceHeaders = scheme.nonceHeader === undefined ? [] : [scheme.nonceHeader];
  const replaced = new Set(['authorization', scheme.dateHeader, scheme.contentHashHeader, ...nonceHeaders]);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lowerName = name.toLowerCase();
    if (value === undefined || replaced.has(lowerName)) continue;
    const joined = Array.isArray(value) ? value.join(',') : value;
    headers[lowerName] = headers[lowerName] === undefined ? joined : `${headers[lowerName]},${joined}`;
  }
  if (headers['host'] === undefined) throw new Error('signRequest needs a host header');

  const signingDate = formatSigningDate(options.now);
  const payloadHash = yield* sha256Hex(request.body);
  headers[scheme.dateHeader] = signingDate;
  headers[scheme.contentHashHeader] = payloadHash;
  if (options.nonce !== undefined) {
    if (scheme.nonceHeader === undefined) throw new Error(`the ${scheme.algorithm} scheme has no nonce header`);
    headers[scheme.nonceHeader] = options.nonce;
  }

  const signedHeaders = normalizeSignedHeaders(
    [...SIGNED_WHEN_PRESENT, scheme.contentHashHeader, scheme.dateHeader, ...nonceHeaders].filter((name) => headers[name] !== undefined),
  );
  const scope = { date: signingDate.slice(0, 8), region: options.region, service: options.service };
  const canonical = canonicalRequest(scheme, { ...request, headers }, signedHeaders, payloadHash);
  const signingKey = yield* deriveSigningKey(scheme, credentials.secretKey, scope);
  const signature = yield* calculateSignature(signingKey, yield* stringToSign(scheme, signingDate, scope, canonical));
  headers['authorization'] = formatAuthorization(scheme, credentials.accessKeyId, scope, signedHeaders, signature);
  return headers;
}

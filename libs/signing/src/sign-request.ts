import { formatAuthorization } from './authorization';
import { canonicalRequest, normalizeSignedHeaders } from './canonical-request';
import type { HttpRequestToSign } from './http-request';
import { calculateSignature, deriveSigningKey, sha256Hex, stringToSign, type SigningCredentials } from './signature';
import { formatSigningDate } from './signing-date';
import type { SigningScheme } from './signing-scheme';

export interface SignRequestOptions {
  region: string;
  service: string;
  /** Signing time; defaults to the current time. */
  now?: Date;
}

const SIGNED_WHEN_PRESENT = ['content-length', 'content-type', 'host'];

/**
 * Adds the date header (from `now`), the content-hash header and Authorization; returns the complete header
 * set to send, with lower-case names. Signs content-length, content-type, host, the hash and date headers when
 * present. Any Authorization, date or content-hash header already in `request.headers` is replaced.
 * Throws when there is no host header: a request without one could never be verified.
 */
export function signRequest(
  scheme: SigningScheme,
  request: HttpRequestToSign,
  credentials: SigningCredentials,
  options: SignRequestOptions,
): Record<string, string> {
  const replaced = new Set(['authorization', scheme.dateHeader, scheme.contentHashHeader]);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lowerName = name.toLowerCase();
    if (value === undefined || replaced.has(lowerName)) continue;
    const joined = Array.isArray(value) ? value.join(',') : value;
    headers[lowerName] = headers[lowerName] === undefined ? joined : `${headers[lowerName]},${joined}`;
  }
  if (headers['host'] === undefined) throw new Error('signRequest needs a host header');

  const amzDate = formatSigningDate(options.now ?? new Date());
  const payloadHash = sha256Hex(request.body);
  headers[scheme.dateHeader] = amzDate;
  headers[scheme.contentHashHeader] = payloadHash;

  const signedHeaders = normalizeSignedHeaders(
    [...SIGNED_WHEN_PRESENT, scheme.contentHashHeader, scheme.dateHeader].filter((name) => headers[name] !== undefined),
  );
  const scope = { date: amzDate.slice(0, 8), region: options.region, service: options.service };
  const canonical = canonicalRequest(scheme, { ...request, headers }, signedHeaders, payloadHash);
  const signingKey = deriveSigningKey(scheme, credentials.secretKey, scope);
  const signature = calculateSignature(signingKey, stringToSign(scheme, amzDate, scope, canonical));
  headers['authorization'] = formatAuthorization(scheme, credentials.accessKeyId, scope, signedHeaders, signature);
  return headers;
}

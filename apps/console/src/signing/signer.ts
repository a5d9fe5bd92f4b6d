import { canonicalRequest, normalizeSignedHeaders, type RequestToSign } from './canonical-request.js';
import type { SigningScheme } from './signing-scheme.js';

export interface Credentials {
  accessKeyId: string;
  secretKey: string;
}

export interface SigningScope {
  /** yyyymmdd */
  date: string;
  region: string;
  service: string;
}

/**
 * The WebCrypto calls signing needs: `crypto.subtle` in the browser, `globalThis.crypto.subtle` in Node 20.
 * Injected so that the signer holds no global and tests can run it in Node.
 */
export type Digests = Pick<SubtleCrypto, 'digest' | 'importKey' | 'sign'>;

const utf8 = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function sha256Hex(subtle: Digests, data: Uint8Array<ArrayBuffer> | string): Promise<string> {
  return hex(await subtle.digest('SHA-256', typeof data === 'string' ? utf8.encode(data) : data));
}

async function hmac(subtle: Digests, key: Uint8Array<ArrayBuffer> | ArrayBuffer, data: string): Promise<ArrayBuffer> {
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return subtle.sign('HMAC', cryptoKey, utf8.encode(data));
}

/** `yyyymmddThhmmssZ` in UTC. */
export function formatSigningDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

export function credentialScope(scheme: SigningScheme, scope: SigningScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/${scheme.terminator}`;
}

export async function deriveSigningKey(subtle: Digests, scheme: SigningScheme, secretKey: string, scope: SigningScope): Promise<ArrayBuffer> {
  const dateKey = await hmac(subtle, utf8.encode(`${scheme.secretPrefix}${secretKey}`), scope.date);
  const regionKey = await hmac(subtle, dateKey, scope.region);
  const serviceKey = await hmac(subtle, regionKey, scope.service);
  return hmac(subtle, serviceKey, scheme.terminator);
}

export async function stringToSign(subtle: Digests, scheme: SigningScheme, signingDate: string, scope: SigningScope, canonical: string): Promise<string> {
  return [scheme.algorithm, signingDate, credentialScope(scheme, scope), await sha256Hex(subtle, canonical)].join('\n');
}

export async function calculateSignature(subtle: Digests, signingKey: ArrayBuffer, text: string): Promise<string> {
  return hex(await hmac(subtle, signingKey, text));
}

export function formatAuthorization(scheme: SigningScheme, accessKeyId: string, scope: SigningScope, signedHeaders: readonly string[], signature: string): string {
  return `${scheme.algorithm} Credential=${accessKeyId}/${credentialScope(scheme, scope)}, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`;
}

export interface SignOptions {
  region: string;
  service: string;
  now: Date;
  /** Random text for the scheme's nonce header, signed with the rest. */
  nonce?: string;
}

/** Headers signed whenever the request has them, besides the scheme's date and content-hash headers. */
const SIGNED_WHEN_PRESENT = ['content-length', 'content-type', 'host'];

/**
 * The headers of a signed request, lower-case: the request's own, the date, content-hash and (given a nonce)
 * nonce headers and Authorization (any given ones replaced). A browser sends Host and Content-Length itself, so `request.headers`
 * must hold exactly the values it will send (location.host, the body's byte length).
 */
export async function signRequest(
  subtle: Digests,
  scheme: SigningScheme,
  request: RequestToSign,
  credentials: Credentials,
  options: SignOptions,
): Promise<Record<string, string>> {
  const nonceHeaders = scheme.nonceHeader === undefined ? [] : [scheme.nonceHeader];
  const replaced = new Set(['authorization', scheme.dateHeader, scheme.contentHashHeader, ...nonceHeaders]);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lowerName = name.toLowerCase();
    if (replaced.has(lowerName)) continue;
    const joined = Array.isArray(value) ? value.join(',') : value;
    headers[lowerName] = headers[lowerName] === undefined ? joined : `${headers[lowerName]},${joined}`;
  }
  if (headers['host'] === undefined) throw new Error('signRequest needs a host header');

  const signingDate = formatSigningDate(options.now);
  const payloadHash = await sha256Hex(subtle, request.body);
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
  const signingKey = await deriveSigningKey(subtle, scheme, credentials.secretKey, scope);
  const signature = await calculateSignature(subtle, signingKey, await stringToSign(subtle, scheme, signingDate, scope, canonical));
  headers['authorization'] = formatAuthorization(scheme, credentials.accessKeyId, scope, signedHeaders, signature);
  return headers;
}

import type { Digesting } from './digesting';
import type { SigningScheme } from './signing-scheme';

export interface SigningCredentials {
  accessKeyId: string;
  secretKey: string;
}

export interface SigningScope {
  /** yyyymmdd */
  date: string;
  region: string;
  service: string;
}

const utf8 = new TextEncoder();

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === 'string' ? utf8.encode(data) : data;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function* hmac(key: Uint8Array | string, data: string): Digesting<Uint8Array> {
  return yield { kind: 'hmac-sha256', key: bytesOf(key), data: utf8.encode(data) };
}

/** Lower-case hex SHA-256 of the bytes, or of a string's UTF-8 bytes. */
export function* sha256Hex(data: Uint8Array | string): Digesting<string> {
  return hex(yield { kind: 'sha256', data: bytesOf(data) });
}

/** date/region/service/terminator */
export function credentialScope(scheme: SigningScheme, scope: SigningScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/${scheme.terminator}`;
}

export function* deriveSigningKey(scheme: SigningScheme, secretKey: string, scope: SigningScope): Digesting<Uint8Array> {
  const dateKey = yield* hmac(`${scheme.secretPrefix}${secretKey}`, scope.date);
  const regionKey = yield* hmac(dateKey, scope.region);
  const serviceKey = yield* hmac(regionKey, scope.service);
  return yield* hmac(serviceKey, scheme.terminator);
}

export function* stringToSign(scheme: SigningScheme, signingDate: string, scope: SigningScope, canonicalRequestText: string): Digesting<string> {
  return [scheme.algorithm, signingDate, credentialScope(scheme, scope), yield* sha256Hex(canonicalRequestText)].join('\n');
}

/** Hex HMAC-SHA256 of the string to sign under the derived signing key. */
export function* calculateSignature(signingKey: Uint8Array, stringToSignText: string): Digesting<string> {
  return hex(yield* hmac(signingKey, stringToSignText));
}

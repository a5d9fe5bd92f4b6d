import { createHash, createHmac } from 'node:crypto';
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

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** date/region/service/terminator */
export function credentialScope(scheme: SigningScheme, scope: SigningScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/${scheme.terminator}`;
}

export function deriveSigningKey(scheme: SigningScheme, secretKey: string, scope: SigningScope): Buffer {
  const dateKey = hmac(`${scheme.secretPrefix}${secretKey}`, scope.date);
  const regionKey = hmac(dateKey, scope.region);
  const serviceKey = hmac(regionKey, scope.service);
  return hmac(serviceKey, scheme.terminator);
}

export function stringToSign(scheme: SigningScheme, amzDate: string, scope: SigningScope, canonicalRequestText: string): string {
  return [scheme.algorithm, amzDate, credentialScope(scheme, scope), sha256Hex(canonicalRequestText)].join('\n');
}

/** Hex HMAC-SHA256 of the string to sign under the derived signing key. */
export function calculateSignature(signingKey: Buffer, stringToSignText: string): string {
  return hmac(signingKey, stringToSignText).toString('hex');
}

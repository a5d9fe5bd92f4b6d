import { createHash, createHmac } from 'node:crypto';
import * as core from './core';
import type { SigningScheme, SigningScope } from './core';

/** node:crypto's digests for the shared signing steps (./core), which need them passed in. */
const NODE_DIGESTS: core.Digests = {
  sha256: (data) => createHash('sha256').update(data).digest(),
  hmacSha256: (key, data) => createHmac('sha256', key).update(data).digest(),
};

/** Runs one of the shared signing steps with node:crypto. */
export function withNodeCrypto<T>(computation: core.Digesting<T>): T {
  return core.runDigests(computation, NODE_DIGESTS);
}

export function sha256Hex(data: Uint8Array | string): string {
  return withNodeCrypto(core.sha256Hex(data));
}

export function deriveSigningKey(scheme: SigningScheme, secretKey: string, scope: SigningScope): Buffer {
  const key = withNodeCrypto(core.deriveSigningKey(scheme, secretKey, scope));
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength);
}

export function stringToSign(scheme: SigningScheme, signingDate: string, scope: SigningScope, canonicalRequestText: string): string {
  return withNodeCrypto(core.stringToSign(scheme, signingDate, scope, canonicalRequestText));
}

/** Hex HMAC-SHA256 of the string to sign under the derived signing key. */
export function calculateSignature(signingKey: Uint8Array, stringToSignText: string): string {
  return withNodeCrypto(core.calculateSignature(signingKey, stringToSignText));
}

import { runDigestsAsync, signRequest as signingSteps, webCryptoDigests, type RequestToSign, type SigningCredentials, type SigningScheme, type SignRequestOptions, type SubtleDigests } from '@svc/signing/core';

export type Credentials = SigningCredentials;

/** Scope service of the replication API (libs/config SIGNING_SERVICE_NAME). */
export const SIGNING_SERVICE = 'replication';

/**
 * The server's signer (libs/signing/src/core) with the page's WebCrypto: `crypto.subtle` in the browser,
 * `globalThis.crypto.subtle` in Node 20. Injected so that the signer holds no global and tests can run it in Node.
 */
export function signRequest(
  subtle: SubtleDigests,
  scheme: SigningScheme,
  request: RequestToSign,
  credentials: Credentials,
  options: SignRequestOptions,
): Promise<Record<string, string>> {
  return runDigestsAsync(signingSteps(scheme, request, credentials, options), webCryptoDigests(subtle));
}

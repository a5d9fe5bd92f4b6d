import * as core from './core';
import type { RequestToSign, SigningCredentials, SigningScheme } from './core';
import { withNodeCrypto } from './signature';

export interface SignRequestOptions extends Omit<core.SignRequestOptions, 'now'> {
  /** Signing time; defaults to the current time. */
  now?: Date;
}

/** The shared signer (./core signRequest, which says what is signed and what it throws) with node:crypto. */
export function signRequest(scheme: SigningScheme, request: RequestToSign, credentials: SigningCredentials, options: SignRequestOptions): Record<string, string> {
  return withNodeCrypto(core.signRequest(scheme, request, credentials, { ...options, now: options.now ?? new Date() }));
}

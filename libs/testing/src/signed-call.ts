import { DEFAULT_REGION, SIGNING_SERVICE_NAME } from '@svc/config';
import type { OperationName, SignedCall } from '@svc/contracts';
import { SVC4_SCHEME, signRequest } from '@svc/signing';

export interface SigningKeyPair {
  accessKeyId: string;
  secretKey: string;
}

/**
 * An API call signed as a client signs it, in the shape the gateway forwards to the registry (no body: its hash is
 * signed): for tests that speak to the registry on the bus as the gateway does.
 */
export function signedCallFor(operation: OperationName, body: string, key: SigningKeyPair, options: { now?: Date; region?: string; host?: string } = {}): SignedCall {
  const request = { method: 'POST', path: `/api/${operation}`, headers: { host: options.host ?? 'gateway.test', 'content-type': 'application/json' }, body };
  const headers = signRequest(SVC4_SCHEME, request, key, { region: options.region ?? DEFAULT_REGION, service: SIGNING_SERVICE_NAME, now: options.now ?? new Date() });
  const signed = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), [value]]));
  return { method: 'POST', path: request.path, query: {}, headers: signed };
}

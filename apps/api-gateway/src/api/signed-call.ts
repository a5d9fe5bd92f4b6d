import type { SignedCall } from '@svc/contracts';
import { SVC4_SCHEME, type VerifiedHeaders } from '@svc/signing';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: Record<string, string[]>;
  /** Every header as sent, names lower-cased (headersAsSent). */
  headers: Record<string, string[]>;
}

/**
 * What the registry needs to verify a call itself: all the signature covers but the body (checked here against the
 * signed hash). Only Authorization, the date and the signed headers go: other headers mean nothing to the signature.
 */
export function signedCallOf(request: ReceivedRequest, verified: VerifiedHeaders): SignedCall {
  const names = new Set(['authorization', SVC4_SCHEME.dateHeader.toLowerCase(), ...verified.authorization.signedHeaders.map((name) => name.toLowerCase())]);
  const headers: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const name of names) {
    const values = request.headers[name];
    if (values !== undefined) headers[name] = values;
  }
  return { method: request.method, path: request.path, query: request.query, headers };
}

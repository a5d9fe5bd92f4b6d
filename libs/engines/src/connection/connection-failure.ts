import { cannotReachText } from '@svc/contracts';
import { HOST_POLICY_CODE } from './dial-guard';

/**
 * Short, secret-free reasons for failed connection attempts. Each engine words its driver's errors (see its
 * access); what is left are Node socket and TLS errors, worded here. Driver messages are never passed through
 * whole: only codes are inspected, plus a few fixed texts.
 */

export interface FailureContext {
  /** The database the attempt named, for "database does not exist". */
  database?: string;
  timeoutMs: number;
}

/**
 * The one reason for every attempt that reached no server speaking the engine's protocol: refused, timed out,
 * unknown host, unreachable network, TLS failed or not offered, reset, or a server that answered something else.
 * Telling these apart would tell a caller which hosts and ports are open (a port scanner); Create and Alter put
 * the address the caller gave in its place (cannotReachText).
 */
export const UNREACHABLE_REASON = cannotReachText();

/** The server refused the login (user or password): Create and Alter put it on the credentials' field, not the address's. */
export const AUTHENTICATION_FAILED_REASON = 'authentication failed';

/** "timed out after 10 s": for a deadline of the service's own, not a connection attempt's. */
export function timedOutReason(timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return `timed out after ${seconds} s`;
}

/** Node's socket and DNS codes of an attempt that reached no server. */
const UNREACHABLE_SOCKET_CODES = new Set([
  // A connect the dial policy refused (dial-guard.ts): worded like any other, so that no answer tells what a name resolves to.
  HOST_POLICY_CODE,
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPROTO',
]);

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Whether `error` (or what it wraps) is a Node socket, DNS or TLS failure: the attempt reached no server. */
export function isUnreachableSocketError(error: unknown): boolean {
  return errorChain(error).some((candidate) => {
    const code = candidate['code'];
    if (typeof code !== 'string') return false;
    return UNREACHABLE_SOCKET_CODES.has(code) || CERTIFICATE_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
  });
}

/** UNREACHABLE_REASON for Node socket, DNS and TLS failures, searched through wrapped errors (mssql → tedious → AggregateError → socket error). */
export function socketFailureReason(error: unknown): string | undefined {
  return isUnreachableSocketError(error) ? UNREACHABLE_REASON : undefined;
}

/** The error and everything it wraps (cause, originalError, AggregateError.errors), breadth first. */
export function errorChain(error: unknown): Record<string, unknown>[] {
  const chain: Record<string, unknown>[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < 16) {
    const next = queue.shift();
    if (!isRecord(next) || chain.includes(next)) continue;
    chain.push(next);
    queue.push(next['cause'], next['originalError']);
    const inner = next['errors'];
    if (Array.isArray(inner)) queue.push(...(inner as unknown[]));
  }
  return chain;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function messageOf(error: unknown): string {
  return isRecord(error) && typeof error['message'] === 'string' ? error['message'] : '';
}

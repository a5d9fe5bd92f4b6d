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

export function timedOutReason(timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return `timed out after ${seconds} s`;
}

const SOCKET_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EAI_NONAME: 'host not found',
  ECONNRESET: 'connection reset by server',
  EPIPE: 'connection reset by server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  EPROTO: 'TLS handshake failed',
};

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

/** Node socket and TLS codes, searched through wrapped errors (mssql → tedious → AggregateError → socket error). */
export function socketFailureReason(error: unknown, context: FailureContext): string | undefined {
  for (const candidate of errorChain(error)) {
    const code = candidate['code'];
    if (typeof code !== 'string') continue;
    if (code === 'ETIMEDOUT') return timedOutReason(context.timeoutMs);
    const reason = SOCKET_REASONS[code];
    if (reason !== undefined) return reason;
    if (CERTIFICATE_CODES.has(code)) return `server certificate not trusted (${code})`;
    if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS handshake failed';
  }
  return undefined;
}

/** The error and everything it wraps (cause, originalError, AggregateError.errors), breadth first. */
function errorChain(error: unknown): Record<string, unknown>[] {
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

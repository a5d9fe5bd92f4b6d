const UNTRUSTED_CERTIFICATE = "the server's certificate is not signed by a CA this machine trusts (give the CA's certificate with --ca-file or SVC_CA_FILE)";

const REASONS = new Map<string, string>(Object.entries({
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed by the server',
  CONNECTION_REFUSED: 'connection refused',
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED_CERTIFICATE,
  DEPTH_ZERO_SELF_SIGNED_CERT: UNTRUSTED_CERTIFICATE,
  UNABLE_TO_GET_ISSUER_CERT: UNTRUSTED_CERTIFICATE,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED_CERTIFICATE,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED_CERTIFICATE,
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate is not issued for this host name",
  EPROTO: 'the TLS handshake failed (does the server serve HTTPS on this port?)',
}));

/** scheme://host[:port] — without user info, which could hold a password. */
export function displayEndpoint(url: URL | string): string {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the server';
  }
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Node reports a refused dual-stack connect as an AggregateError holding one error per address.
  const inner = (error as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.length > 0 ? errorCode(inner[0]) : undefined;
}

/** `cannot reach http://host:port: connection refused` */
export function describeNetworkError(url: URL | string, error: unknown): string {
  const code = errorCode(error);
  const known = code === undefined ? undefined : REASONS.get(code);
  const reason = known ?? (error instanceof Error && error.message ? error.message : String(error));
  return `cannot reach ${displayEndpoint(url)}: ${reason}`;
}

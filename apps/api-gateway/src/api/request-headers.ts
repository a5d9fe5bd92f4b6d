/**
 * Headers exactly as sent, every occurrence kept. Node's `request.headers` keeps only the first Authorization,
 * Host or Content-Type and joins repeated X-Svc-Date values, so it cannot say what the caller really sent.
 */
export function headersAsSent(rawHeaders: readonly string[]): Record<string, string[]> {
  const headers: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (let at = 0; at + 1 < rawHeaders.length; at += 2) {
    const name = (rawHeaders[at] ?? '').toLowerCase();
    (headers[name] ??= []).push(rawHeaders[at + 1] ?? '');
  }
  return headers;
}

/**
 * The query string's parameters, decoded, every occurrence kept. A record without a prototype: a parameter named
 * `constructor` or `__proto__` is a parameter like any other, not a member of Object.prototype.
 */
export function queryAsSent(requestUrl: string): Record<string, string[]> {
  const query: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of new URL(requestUrl, 'http://gateway.invalid').searchParams) (query[name] ??= []).push(value);
  return query;
}

/** Headers the gateway reads itself or that every signature covers: each may appear once only. */
const SINGLE_HEADERS = ['authorization', 'host', 'content-type', 'content-length'];

/**
 * The first header that is given more than once although the request's meaning depends on it: Authorization,
 * the headers the gateway reads, the scheme's own headers (`x-svc-*`) and every header the Authorization lists
 * in SignedHeaders. A repeated one would let the signature and the gateway see different requests.
 */
export function repeatedSigningHeader(headers: Record<string, string[]>, schemeHeaderPrefix: string): string | null {
  const signed = signedHeaderNames(headers['authorization']?.[0] ?? '');
  for (const [name, values] of Object.entries(headers)) {
    if (values.length < 2) continue;
    if (SINGLE_HEADERS.includes(name) || name.startsWith(schemeHeaderPrefix) || signed.has(name)) return name;
  }
  return null;
}

function signedHeaderNames(authorization: string): Set<string> {
  const list = /SignedHeaders=([^,\s]*)/.exec(authorization)?.[1] ?? '';
  return new Set(list.toLowerCase().split(';').filter((name) => name !== ''));
}

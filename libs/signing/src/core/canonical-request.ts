import type { SigningScheme } from './signing-scheme';

/**
 * A request as the signer and the verifier see it. `path` is the path exactly as it appears on the request line,
 * without the query string; `query` holds decoded names and values; header names may have any case, and a list is
 * several occurrences of one header. A string body is signed by its UTF-8 bytes.
 */
export interface RequestToSign {
  method: string;
  path: string;
  query?: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array | string;
}

/** Every value of a header, matched case-insensitively, in the order they appear. */
export function headerValues(headers: RequestToSign['headers'], name: string): string[] {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [headerName, value] of Object.entries(headers)) {
    if (value === undefined || headerName.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  return values;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const utf8 = new TextEncoder();

/** RFC 3986 percent-encoding of the UTF-8 bytes, keeping only unreserved characters. */
export function uriEncode(value: string): string {
  let encoded = '';
  for (const char of value) {
    if (UNRESERVED.test(char)) {
      encoded += char;
      continue;
    }
    for (const byte of utf8.encode(char)) encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

function normalizedSegments(path: string): string[] {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments;
}

export function canonicalUri(scheme: SigningScheme, path: string): string {
  if (!scheme.normalizePath) {
    const encoded = path.split('/').map(uriEncode).join('/');
    return encoded === '' ? '/' : encoded;
  }
  const segments = normalizedSegments(path);
  const trailingSlash = segments.length > 0 && path.endsWith('/') ? '/' : '';
  return `/${segments.map(uriEncode).join('/')}${trailingSlash}`;
}

export function canonicalQueryString(query: RequestToSign['query']): string {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) pairs.push([uriEncode(name), uriEncode(item)]);
  }
  // Encoded text is ASCII, so code-unit order equals the byte order SigV4 asks for.
  pairs.sort(([nameA, valueA], [nameB, valueB]) => compare(nameA, nameB) || compare(valueA, valueB));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function canonicalHeaderValue(value: string): string {
  return value.trim().replace(/\s+/g, ' ');
}

/** Lower-cased, de-duplicated and sorted, as SigV4's SignedHeaders line wants them. */
export function normalizeSignedHeaders(signedHeaders: readonly string[]): string[] {
  return [...new Set(signedHeaders.map((name) => name.toLowerCase()))].sort(compare);
}

export function canonicalRequest(
  scheme: SigningScheme,
  request: Omit<RequestToSign, 'body'>,
  signedHeaders: readonly string[],
  payloadHash: string,
): string {
  const names = normalizeSignedHeaders(signedHeaders);
  const headerLines = names.map((name) => `${name}:${headerValues(request.headers, name).map(canonicalHeaderValue).join(',')}\n`);
  return [
    request.method.toUpperCase(),
    canonicalUri(scheme, request.path),
    canonicalQueryString(request.query),
    headerLines.join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
}

/** SigV4's canonical request (the same rules as libs/signing/src/canonical-request.ts), free of Node APIs. */
import type { SigningScheme } from './signing-scheme.js';

export interface RequestToSign {
  method: string;
  /** The path exactly as on the request line, without the query string. */
  path: string;
  /** Decoded names and values. */
  query?: Record<string, string | string[]>;
  /** Header names in any case; a list is several occurrences of one header. */
  headers: Record<string, string | string[]>;
  body: Uint8Array<ArrayBuffer>;
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

export function canonicalUri(scheme: SigningScheme, path: string): string {
  if (!scheme.normalizePath) {
    const encoded = path.split('/').map(uriEncode).join('/');
    return encoded === '' ? '/' : encoded;
  }
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailingSlash = segments.length > 0 && path.endsWith('/') ? '/' : '';
  return `/${segments.map(uriEncode).join('/')}${trailingSlash}`;
}

function compare(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
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

/** Lower-cased, de-duplicated and sorted, as the SignedHeaders line wants them. */
export function normalizeSignedHeaders(names: readonly string[]): string[] {
  return [...new Set(names.map((name) => name.toLowerCase()))].sort(compare);
}

/** Every value of a header, matched case-insensitively, in order. */
export function headerValues(headers: RequestToSign['headers'], name: string): string[] {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [headerName, value] of Object.entries(headers)) {
    if (headerName.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  return values;
}

export function canonicalRequest(scheme: SigningScheme, request: RequestToSign, signedHeaders: readonly string[], payloadHash: string): string {
  const names = normalizeSignedHeaders(signedHeaders);
  const canonicalValue = (value: string) => value.trim().replace(/\s+/g, ' ');
  const headerLines = names.map((name) => `${name}:${headerValues(request.headers, name).map(canonicalValue).join(',')}\n`);
  return [
    request.method.toUpperCase(),
    canonicalUri(scheme, request.path),
    canonicalQueryString(request.query),
    headerLines.join(''),
    names.join(';'),
    payloadHash,
  ].join('\n');
}

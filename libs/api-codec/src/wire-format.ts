export type WireFormat = 'xml' | 'json';

/** Largest request body accepted (DESIGN §4: 413 above it). */
export const MAX_BODY_BYTES = 1024 * 1024;

const MEDIA_TYPES: ReadonlyMap<string, WireFormat> = new Map([
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
  ['application/json', 'json'],
]);

/** The body format a Content-Type names (parameters such as `charset` ignored), or null when it names neither. */
export function wireFormatOf(contentType: string | undefined): WireFormat | null {
  if (contentType === undefined) return null;
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return MEDIA_TYPES.get(mediaType) ?? null;
}

/**
 * Bodies are read as UTF-8 (JSON has no other encoding; an XML body must declare no other). A Content-Type that
 * names another charset describes bytes the gateway would misread, so it is refused rather than guessed at.
 * Returns the charset named when it is not UTF-8, or null (UTF-8, or no charset parameter at all).
 */
export function foreignCharsetOf(contentType: string | undefined): string | null {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name = '', ...value] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value.join('=').trim().replace(/^"(.*)"$/, '$1');
    if (!/^utf-?8$/i.test(charset)) return charset;
  }
  return null;
}

/** The Content-Type of a body this service writes. */
export function contentTypeOf(format: WireFormat): string {
  return format === 'xml' ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8';
}

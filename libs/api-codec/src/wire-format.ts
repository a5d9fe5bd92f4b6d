export type WireFormat = 'xml' | 'json';

/** Largest request body accepted (DESIGN §4: 413 above it). */
export const MAX_BODY_BYTES = 1024 * 1024;

const MEDIA_TYPES: Record<string, WireFormat> = {
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/json': 'json',
};

/** The body format a Content-Type names (parameters such as `charset` ignored), or null when it names neither. */
export function wireFormatOf(contentType: string | undefined): WireFormat | null {
  if (contentType === undefined) return null;
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return MEDIA_TYPES[mediaType] ?? null;
}

/** The Content-Type of a body this service writes. */
export function contentTypeOf(format: WireFormat): string {
  return format === 'xml' ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8';
}

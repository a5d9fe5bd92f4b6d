/**
 * nchar and nvarchar hold UTF-16 code units, an unpaired half of a surrogate pair among them (LEFT, SUBSTRING and
 * REVERSE "may split any surrogate pairs"; NCHAR(0xD800) makes one), and tedious hands such a value over as a JavaScript
 * string with the half in it. PostgreSQL's UTF-8 text cannot hold one, so the model stores each half as a private-use
 * character of plane 16, U+10F000 + (half − 0xD800), and the pool gives it back as the half in every value it answers:
 * what the source's reads see is what tedious would give them. (A value holding U+10F000–U+10F7FF itself, which a real
 * SQL Server keeps as it is, reads back as a half on the model: no suite writes one.)
 */
const UNPAIRED_HALF = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const STORED_HALF = /[\u{10F000}-\u{10F7FF}]/gu;
const FIRST_HALF = 0xd800;
const STORED_BASE = 0x10f000;

/** The text as the model stores it: each unpaired half as its private-use stand-in. */
export function storedText(text: string): string {
  return text.replace(UNPAIRED_HALF, (half) => String.fromCodePoint(STORED_BASE + half.charCodeAt(0) - FIRST_HALF));
}

/** The text as SQL Server (through tedious) would give it: each stand-in as the unpaired half it stores. */
export function answeredText(text: string): string {
  return text.replace(STORED_HALF, (stored) => String.fromCharCode(FIRST_HALF + (stored.codePointAt(0) ?? STORED_BASE) - STORED_BASE));
}

/** A row as answered: every text value with its halves given back. */
export function answeredRow(row: unknown): unknown {
  if (Array.isArray(row)) return row.map((value: unknown) => (typeof value === 'string' ? answeredText(value) : value));
  if (typeof row !== 'object' || row === null) return row;
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, typeof value === 'string' ? answeredText(value) : value]));
}

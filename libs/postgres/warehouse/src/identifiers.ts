import { createHash } from 'node:crypto';

export { qualifiedName, quoteIdent, quoteLiteral } from '@svc/postgres/common';

/** PostgreSQL's NAMEDATALEN - 1: longer identifiers are silently truncated by the server. */
export const MAX_IDENTIFIER_BYTES = 63;
const HASH_SUFFIX_HEX = 8;

/**
 * The name itself when it fits PostgreSQL's 63-byte identifier limit; otherwise a prefix plus a hash of the
 * whole name, so that two long names that share a prefix do not collapse into one table (the server would
 * truncate both to the same 63 bytes).
 */
export function fitIdentifier(name: string): string {
  if (Buffer.byteLength(name, 'utf8') <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_SUFFIX_HEX);
  return `${utf8Prefix(name, MAX_IDENTIFIER_BYTES - HASH_SUFFIX_HEX - 1)}_${hash}`;
}

/** The longest prefix of `text` that is at most `maxBytes` in UTF-8, never splitting a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  let prefix = '';
  let bytes = 0;
  for (const character of text) {
    const size = Buffer.byteLength(character, 'utf8');
    if (bytes + size > maxBytes) break;
    prefix += character;
    bytes += size;
  }
  return prefix;
}

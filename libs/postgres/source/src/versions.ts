/**
 * Change-tracking versions are PostgreSQL xid8 values (64-bit transaction ids that never wrap) written
 * as decimal text. They are spliced into COPY statements, which take no bind parameters, so anything
 * that is not a plain unsigned integer is refused before it gets near SQL.
 */
const VERSION_PATTERN = /^(0|[1-9][0-9]{0,19})$/;
const XID8_MAX = 2n ** 64n - 1n;

export class InvalidVersionError extends Error {
  constructor(what: string) {
    super(`${what} is not a change-tracking version (an unsigned 64-bit integer)`);
    this.name = 'InvalidVersionError';
  }
}

export function parseVersion(text: string, what: string): bigint {
  if (!VERSION_PATTERN.test(text)) throw new InvalidVersionError(what);
  const version = BigInt(text);
  if (version > XID8_MAX) throw new InvalidVersionError(what);
  return version;
}

/** `'123'::xid8` for a version that parseVersion accepted. */
export function xid8Literal(version: bigint): string {
  return `'${version.toString()}'::xid8`;
}

import { createHash } from 'node:crypto';
import { CHANGE_TRACKING_SCHEMA, type TableRef } from '@svc/contracts';
import { qualifiedName as qualifiedSchemaName, quoteIdent } from '@svc/postgres/common';

export { quoteIdent };

/** `"schema"."table"` */
export function qualifiedName(table: TableRef): string {
  return qualifiedSchemaName(table.schema, table.name);
}

/** The schema that holds change tables, capture functions and the tracking registry. */
export const CHANGE_SCHEMA = CHANGE_TRACKING_SCHEMA;
export const TRACKED_TABLES = `${CHANGE_SCHEMA}.tracked_tables`;
/** Where a capture function that failed inside a user's write says so (the write goes on; the table is reseeded). */
export const CAPTURE_FAILURES = `${CHANGE_SCHEMA}.capture_failures`;

/** Columns a change table has besides the key; a key column may not use these names. */
export const CHANGE_COLUMNS = ['svc_op', 'svc_xid', 'svc_seq', 'svc_changed_at'] as const;

/** A column the net-change query adds next to the key columns. */
export const NET_INSERTED_COLUMN = 'svc_inserted';

/** Names a key column of a tracked table cannot have. */
export const RESERVED_KEY_NAMES: ReadonlySet<string> = new Set([...CHANGE_COLUMNS, NET_INSERTED_COLUMN]);

/** Names of the objects that capture the changes of one table (all in CHANGE_SCHEMA). */
export interface TrackingNames {
  /** e.g. `public.orders` */
  changeTable: string;
  xidIndex: string;
  captureFunction: string;
}

/** PostgreSQL truncates identifiers to 63 bytes; the longest suffix below is 8 bytes. */
const MAX_BASE_BYTES = 55;
const HASH_HEX_CHARS = 12;

/**
 * `<schema>.<table>` when that is unambiguous (no '.' in the schema, no '~' anywhere) and fits an
 * identifier with room for a suffix; otherwise a prefix of it plus '~' and a hash of both names, so that
 * distinct tables never share a change table.
 */
export function trackingNames(table: TableRef): TrackingNames {
  const full = `${table.schema}.${table.name}`;
  const readable = !table.schema.includes('.') && !full.includes('~') && Buffer.byteLength(full, 'utf8') <= MAX_BASE_BYTES;
  const base = readable ? full : hashedName(table, full);
  return { changeTable: base, xidIndex: `${base}/xid`, captureFunction: `${base}/capture` };
}

function hashedName(table: TableRef, full: string): string {
  const hash = createHash('sha256').update(JSON.stringify([table.schema, table.name]), 'utf8').digest('hex').slice(0, HASH_HEX_CHARS);
  return `${prefixOfBytes(full, MAX_BASE_BYTES - HASH_HEX_CHARS - 1)}~${hash}`;
}

/** The longest prefix of whole characters that fits in `bytes` UTF-8 bytes. */
function prefixOfBytes(text: string, bytes: number): string {
  let prefix = '';
  for (const char of text) {
    if (Buffer.byteLength(prefix + char, 'utf8') > bytes) break;
    prefix += char;
  }
  return prefix;
}

/** `svc_ct."<name>"` */
export function inChangeSchema(name: string): string {
  return `${CHANGE_SCHEMA}.${quoteIdent(name)}`;
}

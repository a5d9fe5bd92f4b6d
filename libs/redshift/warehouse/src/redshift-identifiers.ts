import { createHash } from 'node:crypto';
import { warehouseTableName, type TableRef } from '@svc/contracts';

/** Redshift's longest identifier, in bytes. */
export const MAX_IDENTIFIER_BYTES = 127;
const HASH_SUFFIX_HEX = 8;

/** `"name"`, with `"` doubled. Redshift folds even quoted identifiers to lower case unless the cluster says otherwise. */
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
/**
 * A name as Redshift's catalog holds it: ASCII letters lower-cased, quoted or not, while enable_case_sensitive_identifier
 * is off (its default); other characters as they are. https://docs.aws.amazon.com/redshift/latest/dg/r_names.html,
 * https://docs.aws.amazon.com/redshift/latest/dg/r_enable_case_sensitive_identifier.html
 */
export const catalogName = (name: string) => name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
export const qualifiedName = (schema: string, name: string) => `${quoteIdent(schema)}.${quoteIdent(name)}`;

/**
 * A string literal for the few values spliced into statements that take no parameters (COPY's S3 path,
 * credentials, region): quotes doubled, and backslashes doubled too, since Redshift reads a backslash in a
 * literal as an escape.
 */
export const quoteLiteral = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The name itself when it fits 127 bytes; otherwise a prefix plus a hash of the whole name, so long names stay distinct. */
export function fitIdentifier(name: string): string {
  if (Buffer.byteLength(name, 'utf8') <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, HASH_SUFFIX_HEX);
  let prefix = '';
  for (const character of name) {
    if (Buffer.byteLength(prefix + character, 'utf8') > MAX_IDENTIFIER_BYTES - HASH_SUFFIX_HEX - 1) break;
    prefix += character;
  }
  return `${prefix}_${hash}`;
}

export const targetTableName = (table: TableRef, bareNameSchemas: ReadonlySet<string>) => fitIdentifier(warehouseTableName(table, bareNameSchemas));
export const shadowTableName = (target: string) => fitIdentifier(`svc_seed_${target}`);

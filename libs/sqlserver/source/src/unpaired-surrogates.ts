import { CHANGE_OPERATION_COLUMN, tableKey, type TableDefinition, type TableRef } from '@svc/contracts';
import { EngineError } from '@svc/engines';

/** Half of a UTF-16 surrogate pair without its other half. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');
const KEY_VALUE_CHARACTERS = 100;
const hasUnpairedSurrogate = (value: unknown): value is string => typeof value === 'string' && UNPAIRED_SURROGATE.test(value);
const RULE =
  'holds half of a UTF-16 surrogate pair without the other half (as LEFT, RIGHT, SUBSTRING, STUFF, REVERSE or NCHAR(0xD800) can leave ' +
  'in nchar and nvarchar), which UTF-8 cannot carry and no warehouse can store';

/**
 * A text value of the source holding an unpaired surrogate. nchar and nvarchar keep whatever UTF-16 code units they
 * are given, and tedious hands them over as they are; UTF-8, in which rows travel, has no form for one: encoded, every
 * such half becomes U+FFFD, so that 'a' + NCHAR(0xD800) and 'a' + NCHAR(0xDBFF) would arrive as one value (two keys as
 * one). The table stops instead, its reason naming table, column and the key's columns; the key's values are only the
 * failure's detail, with each unpaired half written as `\uXXXX`.
 */
export class UnpairedSurrogateError extends EngineError {
  readonly kind = 'invalid-data';
  override readonly serviceWorded = true;
  override readonly valueDetail: string;

  constructor(message: string, valueDetail: string) {
    super(message);
    this.name = 'UnpairedSurrogateError';
    this.valueDetail = valueDetail;
  }
}

/** What a read's rows are, for naming a refused value: its columns in row order, and which of them are the key. */
export interface ReadLayout {
  table: TableRef;
  /** A change read's columns lead with the operation. */
  columns: readonly string[];
  /** Indexes into `columns`; empty for a table without a key. */
  keyColumns: readonly number[];
}

export function readLayout(definition: TableDefinition, kind: 'snapshot' | 'changes'): ReadLayout {
  const names = definition.columns.map((column) => column.name);
  const columns = kind === 'changes' ? [CHANGE_OPERATION_COLUMN, ...names] : names;
  return { table: definition.table, columns, keyColumns: definition.primaryKey.map((key) => columns.indexOf(key)) };
}

/** The refusal of a row (the `rowNumber`th of its read) with a text holding an unpaired surrogate; null for any other row. */
export function unpairedSurrogateInRow(layout: ReadLayout, row: readonly unknown[], rowNumber: number): UnpairedSurrogateError | null {
  const index = row.findIndex(hasUnpairedSurrogate);
  const value = row[index];
  if (!hasUnpairedSurrogate(value)) return null;
  const table = tableKey(layout.table);
  const column = layout.columns[index] ?? `#${index + 1}`;
  const found = `column ${column} holds ${codePointOf(value)} unpaired`;
  if (layout.keyColumns.length === 0) {
    return new UnpairedSurrogateError(`Source: ${table}, row ${rowNumber} of the read (no key), column ${column} ${RULE}; the table stops`, `${table}: row ${rowNumber}; ${found}`);
  }
  const names = layout.keyColumns.map((key) => layout.columns[key] ?? '?');
  const values = layout.keyColumns.map((key, position) => `${names[position] ?? '?'}=${shown(row[key])}`);
  return new UnpairedSurrogateError(
    `Source: ${table}, row of key (${names.join(', ')}), column ${column} ${RULE}; the table stops rather than load it as U+FFFD`,
    `${table}: the row of key (${values.join(', ')}); ${found}`,
  );
}

/**
 * The refusal of validation's key texts (`key_0`, `key_1`… of checksum rows) when one holds an unpaired surrogate: such a
 * key cannot be looked up in a UTF-8 warehouse, where it would find the row of another key. Null when none does.
 */
export function unpairedSurrogateInKeys(table: TableRef, keyColumns: readonly string[], rows: readonly Record<string, unknown>[]): UnpairedSurrogateError | null {
  for (const row of rows) {
    const keys = keyColumns.map((_, index) => row[`key_${index}`]);
    const index = keys.findIndex(hasUnpairedSurrogate);
    const value = keys[index];
    if (!hasUnpairedSurrogate(value)) continue;
    const name = keyColumns[index] ?? '?';
    const values = keyColumns.map((column, position) => `${column}=${shown(keys[position])}`);
    return new UnpairedSurrogateError(
      `Source: ${tableKey(table)}, key column ${name} ${RULE}; validation stops rather than compare it as U+FFFD`,
      `${tableKey(table)}: the key (${values.join(', ')}); column ${name} holds ${codePointOf(value)} unpaired`,
    );
  }
  return null;
}

function codePointOf(text: string): string {
  const half = UNPAIRED_SURROGATE.exec(text)?.[0] ?? '';
  return `U+${(half.charCodeAt(0) || 0).toString(16).toUpperCase()}`;
}

/** A key value for the detail: at most 100 characters, each unpaired half as `\uXXXX` (the detail must be UTF-8 too). */
function shown(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  if (typeof value !== 'string') return 'NULL';
  const characters = [...value];
  const cut = characters.length > KEY_VALUE_CHARACTERS ? `${characters.slice(0, KEY_VALUE_CHARACTERS).join('')}…` : characters.join('');
  return cut.replace(UNPAIRED_SURROGATES, (half) => `\\u${half.charCodeAt(0).toString(16).toUpperCase()}`);
}

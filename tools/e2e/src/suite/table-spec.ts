import { createHash } from 'node:crypto';
import { warehouseTableName } from '@svc/contracts';
import { DEFAULT_SCHEMAS } from '@svc/engine-list';

/**
 * The column types the generic suite uses, named by what they hold rather than by any engine's spelling.
 * Each engine fixture maps them to its own types and reads their values back as canonical text.
 */
export type NeutralType =
  | 'int'
  | 'bigint'
  | 'decimal(12,2)'
  | 'decimal(38,10)'
  | 'text'
  | 'varchar(40)'
  | 'timestamptz'
  | 'bytes'
  | 'uuid'
  | 'json'
  | 'text[]'
  | 'enum'
  | 'boolean';

export interface ColumnSpec {
  name: string;
  type: NeutralType;
  /** Default true; a key column is never null. */
  nullable?: boolean;
  /** For `enum`: the labels, in order. */
  labels?: readonly string[];
}

/** A table as the suite describes it to every engine. */
export interface TableSpec {
  schema: string;
  name: string;
  columns: ColumnSpec[];
  /** Key columns in key order; empty for a table without a primary key. */
  primaryKey: string[];
}

/**
 * A value as every engine reads it back: text in one canonical form per type (see `canonical`), or null.
 * Rows hold values in the order of the spec's columns.
 */
export type CanonicalValue = string | null;
export type CanonicalRow = CanonicalValue[];

/** A JSON document as a value (a class, so that it is never mistaken for anything else). */
export class Json {
  constructor(readonly document: unknown) {}
}

/** A value as the suite writes it: what the engine fixture renders as a literal of the column's type. */
export type Value = string | number | bigint | boolean | Buffer | readonly string[] | Json | Date | null;
export type Row = Record<string, Value>;

export interface Digest {
  rows: number;
  hash: string;
}

export const tableLabel = (spec: Pick<TableSpec, 'schema' | 'name'>) => `${spec.schema}.${spec.name}`;

/** The warehouse table the service writes the spec's table to (DESIGN §6). */
export const warehouseName = (spec: Pick<TableSpec, 'schema' | 'name'>) => warehouseTableName(spec, DEFAULT_SCHEMAS);

export function columnOf(spec: TableSpec, name: string): ColumnSpec {
  const column = spec.columns.find((candidate) => candidate.name === name);
  if (!column) throw new Error(`${tableLabel(spec)} has no column ${name}`);
  return column;
}

/** The spec reduced to some of its columns, in the order given (to compare part of a table). */
export const project = (spec: TableSpec, names: readonly string[]): TableSpec => ({ ...spec, columns: names.map((name) => columnOf(spec, name)) });

/** The spec with a column added at the end (a schema change in the source). */
export const withColumn = (spec: TableSpec, column: ColumnSpec): TableSpec => ({ ...spec, columns: [...spec.columns, column] });

/**
 * The canonical text of a value an engine read back as text in its own way: numbers without insignificant
 * zeros, instants as UTC ISO with microseconds, bytes as lower-case hex, UUIDs lower case, JSON with its
 * keys sorted, arrays as a JSON list. Engines differ in all of these; the digest must not.
 */
export function canonical(type: NeutralType, text: string | null): CanonicalValue {
  if (text === null) return null;
  switch (type) {
    case 'decimal(12,2)':
    case 'decimal(38,10)':
      return canonicalDecimal(text);
    case 'timestamptz':
      return canonicalInstant(text);
    case 'bytes':
      return text.replace(/^\\x|^0x/i, '').toLowerCase();
    case 'uuid':
      return text.toLowerCase();
    case 'json':
      return stableJson(JSON.parse(text));
    case 'text[]':
      return JSON.stringify(JSON.parse(text));
    case 'boolean':
      return /^(t|true|1)$/i.test(text.trim()) ? 'true' : 'false';
    case 'int':
    case 'bigint':
    case 'text':
    case 'varchar(40)':
    case 'enum':
      return text;
  }
}

function canonicalDecimal(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.includes('.')) return trimmed.replace(/^(-?)0+(?=\d)/, '$1');
  return trimmed.replace(/0+$/, '').replace(/\.$/, '').replace(/^(-?)0+(?=\d)/, '$1');
}

/** `2026-01-01 00:01:00.5+00`, `2026-01-01T00:01:00.500000Z`… → `2026-01-01T00:01:00.500000Z` (microseconds kept). */
function canonicalInstant(text: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,7}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text.trim());
  if (!match) throw new Error(`not an instant: ${text}`);
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const micros = fraction.padEnd(6, '0').slice(0, 6);
  const offset = zone === 'Z' ? '+00:00' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const whole = new Date(`${date}T${time}${offset}`);
  return `${whole.toISOString().slice(0, 19)}.${micros}Z`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Count and md5 of the rows in one deterministic order: equal digests mean equal tables, row for row,
 * whichever engines the rows came from (any order would do, as long as both sides use the same one).
 */
export function digestOf(rows: readonly CanonicalRow[]): Digest {
  const lines = rows.map((row) => JSON.stringify(row)).sort();
  const hash = createHash('md5');
  for (const line of lines) hash.update(line).update('\n');
  return { rows: rows.length, hash: hash.digest('hex') };
}

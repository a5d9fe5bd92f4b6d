import type { TableDefinition } from '@svc/contracts';
import type { SeedKeyRange } from '@svc/engines';
import type { MysqlColumnPlan } from '@svc/mysql/common';
import { qualifiedName, quoteName } from '@svc/mysql/common';
import { planOf } from './row-reads';

/** A condition and the values of its placeholders. */
export interface KeyCondition {
  condition: string;
  values: string[];
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const HEX = /^[0-9A-Fa-f]*$/;

/**
 * A key value as SQL: numbers and binary strings written into the statement (checked to be digits or hex first, so that
 * an integer key is compared as a number, never through a string's conversion to DOUBLE), every other form a placeholder.
 */
function literal(plan: MysqlColumnPlan, raw: string, values: string[]): string {
  switch (plan.key) {
    case 'integer':
    case 'unsigned':
    case 'decimal':
    case 'year':
      if (!NUMBER.test(raw)) throw new RangeError(`a numeric key value that is not a number: ${JSON.stringify(raw.slice(0, 40))}`);
      return raw;
    case 'binary':
      if (!HEX.test(raw)) throw new RangeError('a binary key value that is not hex');
      return `X'${raw}'`;
    case 'text':
    case 'enum':
    case 'date':
    case 'datetime':
    case 'timestamp':
    case 'time':
      values.push(raw);
      return '?';
    case null:
      throw new RangeError('a key column whose changes cannot be followed');
  }
}

function keyColumns(definition: TableDefinition, plans: ReadonlyMap<string, MysqlColumnPlan>): { quoted: string; plan: MysqlColumnPlan }[] {
  return definition.primaryKey.map((name) => ({ quoted: quoteName(name), plan: planOf(plans, name) }));
}

const tuple = (parts: readonly string[]) => (parts.length === 1 ? (parts[0] ?? '') : `(${parts.join(', ')})`);

/** Keys (the server's texts of their columns, as the scan decoded them) in `IN` lists of at most `size` keys. */
export function* keyChunks(definition: TableDefinition, plans: ReadonlyMap<string, MysqlColumnPlan>, keys: readonly (readonly (string | null)[])[], size: number): Generator<KeyCondition> {
  const columns = keyColumns(definition, plans);
  const left = tuple(columns.map((column) => column.quoted));
  for (let start = 0; start < keys.length; start += size) {
    const values: string[] = [];
    const lists = keys.slice(start, start + size).map((key) => tuple(columns.map((column, index) => literal(column.plan, key[index] ?? '', values))));
    yield { condition: `${left} IN (${lists.join(', ')})`, values };
  }
}

/** Rows of a seed chunk: key at or above its lower bound and below its upper one (bounds are the server's texts of the key). */
export function keyRangeCondition(definition: TableDefinition, plans: ReadonlyMap<string, MysqlColumnPlan>, range: SeedKeyRange): KeyCondition | null {
  const columns = keyColumns(definition, plans);
  const left = tuple(columns.map((column) => column.quoted));
  const values: string[] = [];
  const bound = (key: readonly string[]) => tuple(columns.map((column, index) => literal(column.plan, key[index] ?? '', values)));
  const parts = [...(range.lower === null ? [] : [`${left} >= ${bound(range.lower)}`]), ...(range.upper === null ? [] : [`${left} < ${bound(range.upper)}`])];
  return parts.length === 0 ? null : { condition: parts.join(' AND '), values };
}

/** Every `step`-th key in key order, as the server's texts: the inner bounds of a chunked seed, in one pass of the key. */
export function seedBoundsSql(definition: TableDefinition, plans: ReadonlyMap<string, MysqlColumnPlan>, step: number): string {
  const columns = keyColumns(definition, plans);
  const aliases = columns.map((_, index) => `svc_k${index}`);
  const selects = columns.map((column, index) => `${column.plan.select(column.quoted)} AS ${aliases[index] ?? ''}`);
  return `SELECT ${aliases.join(', ')} FROM (SELECT ${selects.join(', ')}, ROW_NUMBER() OVER (ORDER BY ${columns.map((column) => column.quoted).join(', ')}) AS svc_row
  FROM ${qualifiedName(definition.table)}) AS numbered WHERE svc_row % ${Math.max(1, Math.floor(step))} = 0 ORDER BY svc_row`;
}

import { quoteIdent } from './identifiers';

export { columnList } from '@svc/postgres/common';

/** `t."id" = l."id" AND …` joining two row sources on the key; `indent` lines up the ANDs of a nested clause. */
export function keysMatch(left: string, right: string, keys: readonly string[], indent = ''): string {
  return keys.map((key) => `${left}.${quoteIdent(key)} = ${right}.${quoteIdent(key)}`).join(`\n${indent}  AND `);
}

/** `NOT EXISTS (…)` over `table AS alias` with `conditions` (ANDed), laid out on its own lines. */
export function notExists(table: string, alias: string, conditions: readonly string[]): string {
  return `NOT EXISTS (
    SELECT 1 FROM ${table} AS ${alias}
    WHERE ${conditions.join('\n      AND ')}
  )`;
}

/**
 * True when every column holds the same value on both sides. Values are compared as text: rows travel as
 * text (CSV) anyway, and json, xml and the geometric types have no equality operator to compare with.
 */
export function sameValues(left: string, right: string, columns: readonly string[]): string {
  return columns.map((column) => `${cast(left, column)} IS NOT DISTINCT FROM ${cast(right, column)}`).join('\n  AND ');
}

/** Negation of sameValues: some column differs. */
export function changedValues(left: string, right: string, columns: readonly string[]): string {
  return `(${columns.map((column) => `${cast(left, column)} IS DISTINCT FROM ${cast(right, column)}`).join('\n    OR ')})`;
}

function cast(alias: string, column: string): string {
  return `${alias}.${quoteIdent(column)}::text`;
}

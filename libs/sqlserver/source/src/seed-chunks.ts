import type { TableDefinition } from '@svc/contracts';
import type { SeedKeyRange } from '@svc/engines';
import { planOfSourceType, stagingPlanOf } from '@svc/sqlserver/common';
import { qualifiedName, quoteName } from './identifiers';

/**
 * The table's size as its heap or clustered index holds it (no nonclustered index: a read does not move them): every
 * page of it, LOB and row-overflow included, and its in-row data pages, the pages TABLESAMPLE draws from. An
 * allocation unit's container is the partition's hobt_id for IN_ROW_DATA (1) and ROW_OVERFLOW_DATA (3), its
 * partition_id for LOB_DATA (2) (sys.allocation_units). Texts: bigint does not fit a JavaScript number.
 */
export const TABLE_SIZE_SQL = `SELECT CONVERT(varchar(20), COALESCE(SUM(CONVERT(bigint, a.total_pages)), 0) * 8192) AS bytes,
  CONVERT(varchar(20), COALESCE(SUM(CASE WHEN a.type = 1 THEN CONVERT(bigint, a.data_pages) END), 0)) AS pages
FROM sys.partitions AS p
JOIN sys.allocation_units AS a ON a.container_id = CASE WHEN a.type IN (1, 3) THEN p.hobt_id ELSE p.partition_id END
WHERE p.object_id = OBJECT_ID(@table) AND p.index_id IN (0, 1)`;

/**
 * Key column types whose text (the read's rendering, column-types.ts) converts back to the type with staging's
 * conversion, so a bound compares as the column's own type and the key's index serves the range. A key with another
 * type (float and real are rendered by the driver, sql_variant, hierarchyid, bit…) seeds as one snapshot.
 */
const RANGE_KEY_TYPES: ReadonlySet<string> = new Set([
  'bigint', 'int', 'smallint', 'tinyint', 'decimal', 'numeric', 'money', 'smallmoney',
  'date', 'time', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset',
  'char', 'nchar', 'varchar', 'nvarchar', 'uniqueidentifier', 'binary', 'varbinary',
]);
const TEXT_TYPES: ReadonlySet<string> = new Set(['char', 'nchar', 'varchar', 'nvarchar']);

const baseOf = (sourceType: string): string => (/^[a-z_0-9]+/i.exec(sourceType)?.[0] ?? sourceType).toLowerCase();

function keyColumns(definition: TableDefinition): { name: string; sourceType: string }[] {
  return definition.primaryKey.map((name) => {
    const column = definition.columns.find((candidate) => candidate.name === name);
    if (column === undefined) throw new Error(`the key column ${name} is not a column of ${qualifiedName(definition.table)}`);
    return { name, sourceType: planOfSourceType(name, column.sourceType).sourceType };
  });
}

/** Whether the table's key can be cut into ranges (see RANGE_KEY_TYPES). */
export function keyCutsIntoRanges(definition: TableDefinition): boolean {
  return definition.primaryKey.length > 0 && keyColumns(definition).every((column) => RANGE_KEY_TYPES.has(baseOf(column.sourceType)));
}

/**
 * The first key of each of `chunks` equal buckets of a page sample of the table's keys, in key order, each key column
 * as the read renders it (`k0`, `k1`…); the sort and the bucketing done by the server, so only `chunks` keys travel.
 * TABLESAMPLE SYSTEM takes each 8-KB page or not ("TABLESAMPLE SYSTEM returns an approximate percentage of rows"); the
 * percent is a literal: bounds need not be exact, only ordered.
 */
export function bucketStartsSql(definition: TableDefinition, percent: number, chunks: number): string {
  const keys = keyColumns(definition);
  const list = (alias: string) => keys.map((key) => `${alias}.${quoteName(key.name)}`).join(', ');
  const rendered = keys.map((key, index) => `${planOfSourceType(key.name, key.sourceType).select(`sampled.${quoteName(key.name)}`)} AS k${index}`);
  return `SELECT ${keys.map((_, index) => `s.k${index}`).join(', ')}
FROM (SELECT ${rendered.join(', ')}, sampled.bucket,
        ROW_NUMBER() OVER (PARTITION BY sampled.bucket ORDER BY ${list('sampled')}) AS nth
      FROM (SELECT ${list('t')}, NTILE(${Math.trunc(chunks)}) OVER (ORDER BY ${list('t')}) AS bucket
            FROM ${qualifiedName(definition.table)} AS t TABLESAMPLE SYSTEM (${percent.toFixed(6)} PERCENT)) AS sampled) AS s
WHERE s.nth = 1 AND s.bucket > 1
ORDER BY s.bucket`;
}

/** A chunk's condition and the texts of its @parameters (nvarchar), or null for the whole table. */
export interface KeyRangeFilter {
  condition: string;
  parameters: [name: string, text: string][];
}

/**
 * The condition of a chunk's rows in the key's order. T-SQL has no row comparison, so a key of several columns
 * compares column by column: (a, b) >= (x, y) is a >= x AND (a > x OR b >= y), whose first term the key's index seeks.
 * Each bound converts to its column's type (text types too: an nvarchar bound beside a varchar column would convert the
 * column instead, by data type precedence, and scan the whole table), so it compares under the column's collation.
 */
export function keyRangeFilter(definition: TableDefinition, range: SeedKeyRange, alias = 't'): KeyRangeFilter | null {
  const keys = keyColumns(definition);
  const parameters: [string, string][] = [];
  const bound = (side: 'lower' | 'upper', texts: readonly string[] | null): string[] | null => {
    if (texts === null) return null;
    if (texts.length !== keys.length) throw new Error(`a chunk bound has ${texts.length} value(s) for a key of ${keys.length} column(s)`);
    return keys.map((key, index) => {
      const name = `${side}${index}`;
      parameters.push([name, texts[index] ?? '']);
      return TEXT_TYPES.has(baseOf(key.sourceType)) ? `CONVERT(${key.sourceType}, @${name})` : stagingPlanOf(key.name, key.sourceType).fromText(`@${name}`);
    });
  };
  const columns = keys.map((key) => `${alias}.${quoteName(key.name)}`);
  const lower = bound('lower', range.lower);
  const upper = bound('upper', range.upper);
  const conditions = [...(lower === null ? [] : [compared(columns, lower, '>')]), ...(upper === null ? [] : [compared(columns, upper, '<')])];
  return conditions.length === 0 ? null : { condition: conditions.join('\n  AND '), parameters };
}

/** columns >= values (`>`) or columns < values (`<`) in key order, led by the first column's own bound for a seek. */
function compared(columns: readonly string[], values: readonly string[], direction: '>' | '<'): string {
  const last = columns.length - 1;
  const step = (index: number): string => {
    const column = columns[index] ?? '';
    const value = values[index] ?? '';
    if (index === last) return `${column} ${direction === '>' ? '>=' : '<'} ${value}`;
    return `(${column} ${direction} ${value} OR (${column} = ${value} AND ${step(index + 1)}))`;
  };
  if (last === 0) return step(0);
  return `${columns[0] ?? ''} ${direction}= ${values[0] ?? ''} AND ${step(0)}`;
}

import type { BucketSum, ChecksumReader, KeyDigest, TableKey } from './checksums';
import {
  bucketSumsSql,
  digestsOfKeysSql,
  integerKeyBoundsSql,
  integerKeyColumn,
  keyDigestsInSegmentsSql,
  segmentSumsSql,
  type ChecksumDialect,
  type ChecksumTable,
} from './checksum-sql';

/** A result row as a driver answers it (PostgreSQL's protocol: BIGINT and DECIMAL as text). */
export type ChecksumRow = Record<string, unknown>;

function integerOf(value: unknown, column: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return BigInt(value.trim());
  throw new Error(`checksum column ${column} is not an integer`);
}

function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  throw new Error('a checksum key column is not text');
}

export function bucketSumsOf(rows: readonly ChecksumRow[]): BucketSum[] {
  return rows.map((row) => ({
    bucket: Number(integerOf(row['bucket'], 'bucket')),
    rows: Number(integerOf(row['row_count'], 'row_count')),
    sum: integerOf(row['digest_sum'] ?? '0', 'digest_sum'),
  }));
}

/** `key_number` comes with the rows of a table keyed by one integer column: the key that picked their bucket. */
export function keyDigestsOf(rows: readonly ChecksumRow[], keyColumns: number): KeyDigest[] {
  return rows.map((row) => ({
    bucket: Number(integerOf(row['bucket'], 'bucket')),
    keyHash: textOf(row['key_hash']) ?? '',
    key: Array.from({ length: keyColumns }, (_, index) => textOf(row[`key_${index}`])),
    digest: integerOf(row['digest'], 'digest'),
    ...(row['key_number'] !== undefined && { keyNumber: integerOf(row['key_number'], 'key_number') }),
  }));
}

export function tableKeysOf(rows: readonly ChecksumRow[], keyColumns: number): TableKey[] {
  return rows.map((row) => ({
    keyHash: textOf(row['key_hash']) ?? '',
    key: Array.from({ length: keyColumns }, (_, index) => textOf(row[`key_${index}`])),
  }));
}

/** Runs one statement in the reader's snapshot; rows as the driver answers them. */
export type ChecksumQuery = (sql: string, parameters: readonly (string | null)[]) => Promise<readonly ChecksumRow[]>;

/** A ChecksumReader over one open snapshot of one table: the statements of checksum-sql.ts, run by `query`. */
export function checksumReader(dialect: ChecksumDialect, table: ChecksumTable, query: ChecksumQuery, close: () => Promise<void>): ChecksumReader {
  const width = table.keyColumns.length;
  return {
    bucketSums: async (buckets, range) => bucketSumsOf(await query(bucketSumsSql(dialect, table, buckets, range), [])),
    integerKeyBounds: async () => {
      if (integerKeyColumn(table) === null) return null;
      const [row] = await query(integerKeyBoundsSql(dialect, table), []);
      if (row?.['min_key'] === null || row?.['min_key'] === undefined || row['max_key'] === null || row['max_key'] === undefined) return null;
      return { min: integerOf(row['min_key'], 'min_key'), max: integerOf(row['max_key'], 'max_key') };
    },
    segmentSums: async (segments, chosenBuckets, range) => bucketSumsOf(await query(segmentSumsSql(dialect, table, segments, chosenBuckets, range), [])),
    keyDigestsInSegments: async (segments, chosen, range) => keyDigestsOf(await query(keyDigestsInSegmentsSql(dialect, table, segments, chosen, range), []), width),
    digestsOfKeys: async (buckets, keys) => {
      if (keys.length === 0) return [];
      const parameters = keys.flatMap((key) => Array.from({ length: width }, (_, index) => key.key[index] ?? null));
      return keyDigestsOf(await query(digestsOfKeysSql(dialect, table, buckets, keys.length), parameters), width);
    },
    close,
  };
}

/**
 * What validation reads of one side of a table (source or warehouse), computed by the engine in SQL: rows are
 * hashed into buckets by their key (an integer key is its own hash), and each bucket summed; only buckets that differ
 * are read key by key.
 * Keys travel as texts each engine can cast back to the column's type (the row interchange format's); rows are
 * matched across engines by `keyHash`, the MD5 of the key's canonical text, never by engine collation or order.
 */

/** A row count and an order-independent sum of 60-bit row digests, for the rows whose key hashes to `bucket`. */
export interface BucketSum {
  bucket: number;
  rows: number;
  sum: bigint;
}

/** One row of a table: its bucket, the MD5 of its key's canonical text, its key as castable texts, its row digest. */
export interface KeyDigest {
  bucket: number;
  keyHash: string;
  key: (string | null)[];
  digest: bigint;
  /** A table keyed by one integer column: the key, which picks the row's bucket and segment (integerSegmentOf). */
  keyNumber?: bigint;
}

/** A key of the table: the MD5 of its canonical text, and its columns as castable texts (for lookups). */
export interface TableKey {
  keyHash: string;
  key: (string | null)[];
}

/**
 * Where a key falls when differing buckets are cut finer: bucket × subBuckets + sub, the sub-bucket picked by the next
 * 32 bits of the key's MD5 (of the key itself for a table keyed by one integer column: segmentOf). With one sub-bucket
 * a segment is its bucket.
 */
export interface Segments {
  buckets: number;
  subBuckets: number;
}

/** Keys of a single integer key column from `from` (inclusive) to `to` (exclusive); an absent end is open. */
export interface KeyRange {
  from?: bigint;
  to?: bigint;
}

/** One consistent snapshot of one side of a table. */
export interface ChecksumReader {
  /** Every non-empty bucket of `buckets` (a table without a key has one bucket: 0); of the rows whose key is in `range` when given. */
  bucketSums(buckets: number, range?: KeyRange): Promise<BucketSum[]>;
  /** The smallest and largest key of a table whose key is one integer column; null for another key, or no rows. */
  integerKeyBounds(): Promise<{ min: bigint; max: bigint } | null>;
  /** Every non-empty segment of the chosen buckets, its `bucket` the segment's number (of the key range when given). */
  segmentSums(segments: Segments, chosenBuckets: readonly number[], range?: KeyRange): Promise<BucketSum[]>;
  /** Every row whose key falls in one of the chosen segments (and in the key range when given). */
  keyDigestsInSegments(segments: Segments, chosen: readonly number[], range?: KeyRange): Promise<KeyDigest[]>;
  /** The rows of these keys (a Type2 warehouse table may hold two current rows of one key, a broken copy none). */
  digestsOfKeys(buckets: number, keys: readonly TableKey[]): Promise<KeyDigest[]>;
  close(): Promise<void>;
}

/** A source snapshot: the change-tracking version it stands at (every change below it is in it, none at or above it is). */
export interface SourceChecksumSnapshot extends ChecksumReader {
  version: string;
  /** The source's estimate of the table's rows (a catalog statistic), for sizing buckets and showing progress. */
  rowsEstimated: number;
  /**
   * The distinct keys with a change recorded at or after `version` (committed by now, which the snapshot itself cannot
   * see: read on a session of its own, taken with the snapshot's), at most `limit` of them; null when there are more.
   * A key deleted since has no row, so its hash comes from the change record's key.
   */
  keysChangedSince(version: string, limit: number): Promise<TableKey[] | null>;
}

/** The source side of a table's validation. */
export interface SourceChecksums {
  /**
   * Runs `work` on a new snapshot, closed when it ends. Every source connection the work needs (the snapshot's, and
   * one for keysChangedSince) is taken at once before it starts: a comparison never waits on the source's pool while
   * holding one of its connections.
   */
  withSnapshot<T>(work: (snapshot: SourceChecksumSnapshot) => Promise<T>): Promise<T>;
  /** Orders two versions of this source (negative, zero, positive). */
  compareVersions(left: string, right: string): number;
  /**
   * Repair: records a change of each key, as if its row had been written, so that the next change cycle re-reads it
   * from the source and applies it (a row that is gone as a delete). Answers the version a watermark passes once that
   * cycle has been applied. Absent on a source whose change tracking records a change only when the row itself is
   * written (SQL Server): a repair never writes a user's rows, so such a source's table is reseeded instead.
   */
  markChanged?(keys: readonly TableKey[]): Promise<string>;
}

/** The source cannot compute validation's checksums (its server lacks what they need): the table is Skipped with this reason. */
export class ChecksumsUnsupportedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ChecksumsUnsupportedError';
  }
}

/** The warehouse side of a table's validation: a Type1 table's rows, a Type2 table's current rows, without system columns. */
export interface WarehouseChecksums {
  openSnapshot(): Promise<ChecksumReader>;
}

/** 60 bits of a row's MD5 (15 hex digits): summed in DECIMAL(38,0), 2^60 × 10^13 rows still fits. */
export const ROW_DIGEST_HEX_DIGITS = 15;
/** 32 bits of a key's MD5 pick its bucket. */
export const BUCKET_HEX_DIGITS = 8;
/** The most buckets a table is cut into (bucket sums are one answer row each). */
export const MAX_BUCKETS = 65536;
/** About this many rows per bucket: a differing bucket costs this many rows read on each side. */
export const ROWS_PER_BUCKET = 1000;

/**
 * The segment of a row (checksum-sql.ts computes the same in SQL): from its key's MD5, or, for a table keyed by one
 * integer column, from the key itself — the bucket the key modulo the buckets, the sub-bucket the key divided by the
 * buckets modulo the sub-buckets, both made non-negative (every engine's integer `/` and `%` truncate toward zero, as
 * BigInt's do). That spares every row of a first pass the MD5 of its key: a third of its CPU on PostgreSQL.
 */
export function segmentOf(row: Pick<KeyDigest, 'keyHash' | 'keyNumber'>, segments: Segments): number {
  if (row.keyNumber !== undefined) return integerSegmentOf(row.keyNumber, segments);
  const bucket = Number.parseInt(row.keyHash.slice(0, BUCKET_HEX_DIGITS), 16) % segments.buckets;
  if (segments.subBuckets === 1) return bucket;
  return bucket * segments.subBuckets + (Number.parseInt(row.keyHash.slice(BUCKET_HEX_DIGITS, 2 * BUCKET_HEX_DIGITS), 16) % segments.subBuckets);
}

function integerSegmentOf(key: bigint, { buckets, subBuckets }: Segments): number {
  const modulo = (value: bigint, divisor: bigint) => ((value % divisor) + divisor) % divisor;
  const bucket = Number(modulo(key, BigInt(buckets)));
  if (subBuckets === 1) return bucket;
  return bucket * subBuckets + Number(modulo(key / BigInt(buckets), BigInt(subBuckets)));
}

/** Buckets for a table of about `rows` rows: a power of two, 1 for a table without a key. */
export function bucketCount(rows: number, keyed: boolean): number {
  if (!keyed) return 1;
  let buckets = 1;
  while (buckets < MAX_BUCKETS && buckets * ROWS_PER_BUCKET < rows) buckets *= 2;
  return buckets;
}

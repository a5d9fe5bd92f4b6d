import type { DifferenceKind } from '@svc/contracts';
import {
  bucketCount,
  segmentOf,
  type BucketSum,
  type ChecksumReader,
  type KeyDigest,
  type KeyRange,
  type Segments,
  type SourceChecksumSnapshot,
  type SourceChecksums,
  type TableKey,
  type WarehouseChecksums,
} from './checksums';

/** The most sub-buckets a differing bucket is cut into. */
const MAX_SUB_BUCKETS = 4096;

/** What the comparison asks of the service around it: the table's watermark, a place to report progress, a clock. */
export interface ComparisonHooks {
  /** The version the table's next change read starts at (every change below it is in the warehouse); null when it has none. */
  watermark(): Promise<string | null>;
  progress(progress: ComparisonProgress): Promise<void>;
  sleep(ms: number): Promise<void>;
  now(): number;
}

export interface ComparisonProgress {
  phase: 'source' | 'warehouse' | 'keys' | 'recheck' | 'repair';
  rowsCompared: number;
  rowsEstimated: number;
  sourceVersion: string;
}

export interface ComparisonLimits {
  /** Keys changed during the comparison that it sets aside and checks again; more fails it as too busy. */
  maxChangedKeys: number;
  /** Differing keys checked again one by one; beyond, the first pass's counts stand and the table is too different. */
  maxRecheckKeys: number;
  /** Rows read key by key in one statement on each side (differing buckets are read in pages of about this many). */
  pageRows: number;
  /** Keys per lookup statement. */
  keysPerLookup: number;
  /** Segments read key by key in one statement (its IN list). */
  segmentsPerRead: number;
  /** How long to wait for the table's watermark to pass a snapshot's version before comparing with what is there. */
  watermarkWaitMs: number;
  watermarkPollMs: number;
  /** Rounds of checking again the keys that differed or changed. */
  recheckRounds: number;
  /** Differing keys kept to show. */
  keysShown: number;
  /**
   * Rows a comparison reads from the source per second at most (0: no cap). Honoured for a table keyed by one integer
   * column, read range by range of its key with pauses; any other table is read in one statement per pass.
   */
  maxRowsPerSecond: number;
}

export const DEFAULT_COMPARISON_LIMITS: ComparisonLimits = {
  maxChangedKeys: 200_000,
  maxRecheckKeys: 50_000,
  pageRows: 50_000,
  keysPerLookup: 500,
  segmentsPerRead: 10_000,
  watermarkWaitMs: 30_000,
  watermarkPollMs: 250,
  recheckRounds: 3,
  keysShown: 20,
  maxRowsPerSecond: 0,
};

/** Seconds of reading at the cap that one key range holds (at least MIN_RANGE_ROWS rows). */
const RANGE_SECONDS_AT_CAP = 5;
const MIN_RANGE_ROWS = 10_000;

/**
 * The key ranges a capped table is read in: `count` ranges of equal width over [min, max], the first open below and the
 * last open above, so that a warehouse row with a key outside the source's bounds is still read.
 */
export function keyRanges(bounds: { min: bigint; max: bigint }, count: number): KeyRange[] {
  const width = bounds.max - bounds.min + 1n;
  const ranges = BigInt(Math.max(1, Math.min(count, Number.MAX_SAFE_INTEGER)));
  const step = (width + ranges - 1n) / ranges;
  if (ranges === 1n || step < 1n) return [{}];
  const cuts: bigint[] = [];
  for (let cut = bounds.min + step; cut <= bounds.max; cut += step) cuts.push(cut);
  if (cuts.length === 0) return [{}];
  return [{ to: cuts[0] }, ...cuts.slice(1).map((to, index) => ({ from: cuts[index], to })), { from: cuts.at(-1) }] as KeyRange[];
}

/** Paces reads to a rows/s cap: after each read, waits until the rows read so far are due. */
class Pace {
  private rows = 0;
  private readonly startedAt: number;

  constructor(
    private readonly hooks: Pick<ComparisonHooks, 'now' | 'sleep'>,
    private readonly rowsPerSecond: number,
  ) {
    this.startedAt = hooks.now();
  }

  async read(rows: number): Promise<void> {
    this.rows += rows;
    const wait = this.startedAt + (this.rows / this.rowsPerSecond) * 1000 - this.hooks.now();
    if (wait > 0) await this.hooks.sleep(wait);
  }
}

export interface DifferingKeyFound {
  keyHash: string;
  key: (string | null)[];
  difference: DifferenceKind;
}

export interface TableComparison {
  sourceVersion: string;
  rowsCompared: number;
  rowsEstimated: number;
  missing: number;
  extra: number;
  different: number;
  /** Keys that changed in the source in every recheck: not compared at rest, not counted as differences. */
  unsettled: number;
  /** The first differing keys (at most keysShown). */
  differingKeys: DifferingKeyFound[];
  /** Every differing key (at most maxRecheckKeys), for a repair. */
  allDifferingKeys: TableKey[];
  /** More keys differed than maxRecheckKeys: the counts are the first pass's, not checked again. */
  tooManyToRecheck: boolean;
  /** A table without a key: the whole table's row counts and whether its checksums agree. */
  wholeTable?: { sourceRows: number; warehouseRows: number; checksumsEqual: boolean };
}

/** So many keys changed while a comparison ran that it could not set them aside. */
export class TableTooBusyError extends Error {
  constructor(limit: number) {
    super(`more than ${limit} keys changed in the source while the table was compared: validate it when it is quieter`);
    this.name = 'TableTooBusyError';
  }
}

/**
 * Compares a table's source and warehouse (DESIGN, "Validation and repair"). Each side sums its rows' digests
 * per key bucket in one read; keys that changed at or after min(source snapshot, watermark) are set aside
 * (subtracted from their buckets on both sides), so live changes never make a bucket differ; only differing
 * buckets are read key by key. Every key that differed or was set aside is then checked again against new
 * snapshots, up to `recheckRounds` times: a key is reported only when it still differs while it did not change.
 */
export async function compareTable(
  source: SourceChecksums,
  warehouse: WarehouseChecksums,
  keyed: boolean,
  hooks: ComparisonHooks,
  limits: ComparisonLimits = DEFAULT_COMPARISON_LIMITS,
): Promise<TableComparison> {
  const comparison = new Comparison(source, warehouse, hooks, limits);
  return keyed ? comparison.keyed() : comparison.wholeTable();
}

interface FirstPass {
  version: string;
  buckets: number;
  rowsCompared: number;
  rowsEstimated: number;
  /** Keys to check again: those that differed and those set aside, by key hash. */
  recheck: Map<string, TableKey>;
  differences: Map<string, DifferingKeyFound>;
  tooMany: boolean;
}

class Comparison {
  constructor(
    private readonly source: SourceChecksums,
    private readonly warehouse: WarehouseChecksums,
    private readonly hooks: ComparisonHooks,
    private readonly limits: ComparisonLimits,
  ) {}

  async wholeTable(): Promise<TableComparison> {
    return this.source.withSnapshot(async (snapshot) => {
      const progress = { rowsEstimated: snapshot.rowsEstimated, sourceVersion: snapshot.version };
      await this.hooks.progress({ phase: 'source', rowsCompared: 0, ...progress });
      const [sourceSum] = await snapshot.bucketSums(1);
      const sourceRows = sourceSum?.rows ?? 0;
      await this.hooks.progress({ phase: 'warehouse', rowsCompared: sourceRows, ...progress });
      const [warehouseSum] = await this.readWarehouse((reader) => reader.bucketSums(1));
      const warehouseRows = warehouseSum?.rows ?? 0;
      const checksumsEqual = sameSum(sourceSum, warehouseSum);
      return {
        ...emptyResult(snapshot.version, sourceRows, snapshot.rowsEstimated),
        wholeTable: { sourceRows, warehouseRows, checksumsEqual },
      };
    });
  }

  async keyed(): Promise<TableComparison> {
    const first = await this.firstPass();
    const result = emptyResult(first.version, first.rowsCompared, first.rowsEstimated);
    if (first.tooMany) return { ...result, ...counted(first.differences, this.limits.keysShown), tooManyToRecheck: true };
    let pending = first.recheck;
    const confirmed = new Map<string, DifferingKeyFound>();
    for (let round = 1; round <= this.limits.recheckRounds && pending.size > 0; round += 1) {
      await this.hooks.progress({ phase: 'recheck', rowsCompared: first.rowsCompared, rowsEstimated: first.rowsEstimated, sourceVersion: first.version });
      pending = await this.recheck(first.buckets, pending, confirmed);
    }
    return { ...result, ...counted(confirmed, this.limits.keysShown), unsettled: pending.size };
  }

  private async firstPass(): Promise<FirstPass> {
    return this.source.withSnapshot(async (snapshot) => {
      const { version, rowsEstimated } = snapshot;
      const buckets = bucketCount(rowsEstimated, true);
      await this.hooks.progress({ phase: 'source', rowsCompared: 0, rowsEstimated, sourceVersion: version });
      // The snapshot's version is known before its rows are read: both sides are read at once (two servers, two reads).
      const base = await this.settledBase(snapshot, version);
      const reads = await this.readsOf(snapshot);
      return await this.readWarehouse(async (reader) => {
        const sourceSums = new Map<number, BucketSum>();
        const warehouseSums = new Map<number, BucketSum>();
        await readBothSides(reads, [snapshot, reader], (side, range) => side.bucketSums(buckets, range), sumOfRows, async (fromSource, fromWarehouse) => {
          addSums(sourceSums, fromSource);
          addSums(warehouseSums, fromWarehouse);
          if (reads.ranges.length > 1) await this.hooks.progress({ phase: 'source', rowsCompared: totalRows(sourceSums), rowsEstimated, sourceVersion: version });
        });
        const rowsCompared = totalRows(sourceSums);
        await this.hooks.progress({ phase: 'warehouse', rowsCompared, rowsEstimated, sourceVersion: version });
        const changed = await this.changedSince(snapshot, base);
        const setAside = { keys: new Set(changed.map((key) => key.keyHash)), source: await this.lookUp(snapshot, buckets, changed), warehouse: await this.lookUp(reader, buckets, changed) };
        const bySegment = (row: KeyDigest) => row.bucket;
        subtract(sourceSums, setAside.source, bySegment);
        subtract(warehouseSums, setAside.warehouse, bySegment);
        await this.hooks.progress({ phase: 'keys', rowsCompared, rowsEstimated, sourceVersion: version });
        const found = await this.differingKeys(snapshot, reader, buckets, differingBuckets(sourceSums, warehouseSums), setAside, reads);
        const recheck = new Map<string, TableKey>(changed.map((key) => [key.keyHash, key]));
        for (const difference of found.differences.values()) recheck.set(difference.keyHash, difference);
        return { version, buckets, rowsCompared, rowsEstimated, recheck, differences: found.differences, tooMany: found.tooMany };
      });
    });
  }

  /**
   * Reads the differing buckets key by key and keeps the keys that differ and were not set aside. Buckets holding
   * more than a page of rows are first cut into sub-buckets, summed in one more read of each side, so that only the
   * differing sub-buckets (about one row each) are read key by key: three reads in all, however many buckets differ.
   */
  private async differingKeys(
    snapshot: ChecksumReader,
    reader: ChecksumReader,
    buckets: number,
    differing: Array<{ bucket: number; rows: number }>,
    setAside: { keys: ReadonlySet<string>; source: readonly KeyDigest[]; warehouse: readonly KeyDigest[] },
    reads: TableReads,
  ): Promise<{ differences: Map<string, DifferingKeyFound>; tooMany: boolean }> {
    let segments: Segments = { buckets, subBuckets: 1 };
    let chosen = differing;
    const rows = differing.reduce((total, bucket) => total + bucket.rows, 0);
    if (rows > this.limits.pageRows) {
      segments = { buckets, subBuckets: subBucketCount(rows / differing.length) };
      const chosenBuckets = differing.map((bucket) => bucket.bucket);
      const inChosen = new Set(chosenBuckets);
      const segmentOfRow = (row: KeyDigest) => (inChosen.has(row.bucket) ? segmentOf(row, segments) : null);
      const sourceSums = new Map<number, BucketSum>();
      const warehouseSums = new Map<number, BucketSum>();
      await readBothSides(reads, [snapshot, reader], (side, range) => side.segmentSums(segments, chosenBuckets, range), sumOfRows, (fromSource, fromWarehouse) => {
        addSums(sourceSums, fromSource);
        addSums(warehouseSums, fromWarehouse);
      });
      subtract(sourceSums, setAside.source, segmentOfRow);
      subtract(warehouseSums, setAside.warehouse, segmentOfRow);
      chosen = differingBuckets(sourceSums, warehouseSums);
    }
    const differences = new Map<string, DifferingKeyFound>();
    for (const page of pagesOf(chosen, this.limits.pageRows, this.limits.segmentsPerRead)) {
      const [sourceRows, warehouseRows]: [KeyDigest[], KeyDigest[]] = [[], []];
      await readBothSides(reads, [snapshot, reader], (side, range) => side.keyDigestsInSegments(segments, page, range), (rows) => rows.length, (fromSource, fromWarehouse) => {
        sourceRows.push(...fromSource);
        warehouseRows.push(...fromWarehouse);
      });
      for (const difference of compareRows(sourceRows, warehouseRows, setAside.keys)) {
        differences.set(difference.keyHash, difference);
        if (differences.size > this.limits.maxRecheckKeys) return { differences, tooMany: true };
      }
    }
    return { differences, tooMany: false };
  }

  /** Compares `pending` keys in new snapshots; keys that did not change are settled here, the others come back. */
  private async recheck(buckets: number, pending: ReadonlyMap<string, TableKey>, confirmed: Map<string, DifferingKeyFound>): Promise<Map<string, TableKey>> {
    const keys = [...pending.values()];
    return this.source.withSnapshot(async (snapshot) => {
      const sourceRows = await this.lookUp(snapshot, buckets, keys);
      const base = await this.settledBase(snapshot, snapshot.version);
      const warehouseRows = await this.readWarehouse((reader) => this.lookUp(reader, buckets, keys));
      const moving = new Set((await this.changedSince(snapshot, base)).map((key) => key.keyHash));
      const next = new Map<string, TableKey>();
      for (const key of keys) if (moving.has(key.keyHash)) next.set(key.keyHash, key);
      for (const difference of compareRows(sourceRows, warehouseRows, moving)) confirmed.set(difference.keyHash, difference);
      return next;
    });
  }

  /**
   * How the table's passes read it: whole (one statement a side) or, under a rows/s cap and for a table keyed by one
   * integer column, range by range of its key — the same ranges on both sides, whose sums add up to the whole table's
   * — paced to the cap. Pacing reads the source no faster; it also keeps both snapshots open longer.
   */
  private async readsOf(snapshot: SourceChecksumSnapshot): Promise<TableReads> {
    const cap = this.limits.maxRowsPerSecond;
    if (cap <= 0) return WHOLE_TABLE;
    const bounds = await snapshot.integerKeyBounds();
    if (bounds === null) return WHOLE_TABLE;
    const rowsPerRange = Math.max(MIN_RANGE_ROWS, cap * RANGE_SECONDS_AT_CAP);
    return { ranges: keyRanges(bounds, Math.ceil(snapshot.rowsEstimated / rowsPerRange)), pace: new Pace(this.hooks, cap) };
  }

  /**
   * The version from which source changes may be missing from the warehouse: the snapshot's, once the table's
   * watermark has passed it (waited for a while), else the watermark's. Keys changed from there are set aside.
   */
  private async settledBase(snapshot: SourceChecksumSnapshot, version: string): Promise<string> {
    const deadline = this.hooks.now() + this.limits.watermarkWaitMs;
    for (;;) {
      const watermark = await this.hooks.watermark();
      if (watermark === null) return version;
      if (this.source.compareVersions(watermark, version) >= 0) return version;
      // An idle table's watermark stays put (no cycle runs without a change): nothing since it, nothing to wait for.
      if (this.hooks.now() >= deadline || (await snapshot.keysChangedSince(watermark, 1))?.length === 0) return watermark;
      await this.hooks.sleep(this.limits.watermarkPollMs);
    }
  }

  private async changedSince(snapshot: SourceChecksumSnapshot, base: string): Promise<TableKey[]> {
    const changed = await snapshot.keysChangedSince(base, this.limits.maxChangedKeys);
    if (changed === null) throw new TableTooBusyError(this.limits.maxChangedKeys);
    return changed;
  }

  private async lookUp(reader: ChecksumReader, buckets: number, keys: readonly TableKey[]): Promise<KeyDigest[]> {
    const rows: KeyDigest[] = [];
    for (let start = 0; start < keys.length; start += this.limits.keysPerLookup) {
      rows.push(...(await reader.digestsOfKeys(buckets, keys.slice(start, start + this.limits.keysPerLookup))));
    }
    return rows;
  }

  private async readWarehouse<T>(read: (reader: ChecksumReader) => Promise<T>): Promise<T> {
    const reader = await this.warehouse.openSnapshot();
    try {
      return await read(reader);
    } finally {
      await reader.close();
    }
  }
}

function emptyResult(sourceVersion: string, rowsCompared: number, rowsEstimated: number): TableComparison {
  return {
    sourceVersion,
    rowsCompared,
    rowsEstimated,
    missing: 0,
    extra: 0,
    different: 0,
    unsettled: 0,
    differingKeys: [],
    allDifferingKeys: [],
    tooManyToRecheck: false,
  };
}

function counted(
  differences: ReadonlyMap<string, DifferingKeyFound>,
  keysShown: number,
): Pick<TableComparison, 'missing' | 'extra' | 'different' | 'differingKeys' | 'allDifferingKeys'> {
  const all = [...differences.values()];
  const count = (kind: DifferingKeyFound['difference']) => all.filter((difference) => difference.difference === kind).length;
  return {
    missing: count('missing'),
    extra: count('extra'),
    different: count('different'),
    differingKeys: all.slice(0, keysShown),
    allDifferingKeys: all.map(({ keyHash, key }) => ({ keyHash, key })),
  };
}

/** The ranges a pass reads one after the other, and the pace it keeps; one open range and no pace: the whole table at once. */
interface TableReads {
  ranges: KeyRange[];
  pace?: Pace;
}

const WHOLE_TABLE: TableReads = { ranges: [{}] };

/**
 * One pass over both sides: range after range, each range read on the source and the warehouse at once (two servers),
 * then paced by the rows the source gave.
 */
async function readBothSides<T>(
  reads: TableReads,
  [source, warehouse]: [ChecksumReader, ChecksumReader],
  read: (side: ChecksumReader, range: KeyRange) => Promise<T[]>,
  rowsIn: (rows: T[]) => number,
  take: (fromSource: T[], fromWarehouse: T[]) => Promise<void> | void,
): Promise<void> {
  for (const range of reads.ranges) {
    const [fromSource, fromWarehouse] = await Promise.all([read(source, range), read(warehouse, range)]);
    await take(fromSource, fromWarehouse);
    await reads.pace?.read(rowsIn(fromSource));
  }
}

function sumOfRows(sums: readonly BucketSum[]): number {
  return sums.reduce((rows, sum) => rows + sum.rows, 0);
}

function addSums(total: Map<number, BucketSum>, sums: readonly BucketSum[]): void {
  for (const sum of sums) {
    const before = total.get(sum.bucket) ?? { bucket: sum.bucket, rows: 0, sum: 0n };
    total.set(sum.bucket, { bucket: sum.bucket, rows: before.rows + sum.rows, sum: before.sum + sum.sum });
  }
}

function totalRows(sums: ReadonlyMap<number, BucketSum>): number {
  let rows = 0;
  for (const sum of sums.values()) rows += sum.rows;
  return rows;
}

/** Takes rows out of their buckets' (or segments') sums; `segmentOfRow` null for a row outside the sums read. */
function subtract(sums: Map<number, BucketSum>, rows: readonly KeyDigest[], segmentOfRow: (row: KeyDigest) => number | null): void {
  for (const row of rows) {
    const segment = segmentOfRow(row);
    if (segment === null) continue;
    const sum = sums.get(segment) ?? { bucket: segment, rows: 0, sum: 0n };
    sums.set(segment, { bucket: segment, rows: sum.rows - 1, sum: sum.sum - row.digest });
  }
}

/** Sub-buckets per differing bucket: about one row each, a power of two from 2 to MAX_SUB_BUCKETS. */
export function subBucketCount(rowsPerBucket: number): number {
  let subBuckets = 2;
  while (subBuckets < MAX_SUB_BUCKETS && subBuckets < rowsPerBucket) subBuckets *= 2;
  return subBuckets;
}

function sameSum(left: BucketSum | undefined, right: BucketSum | undefined): boolean {
  return (left?.rows ?? 0) === (right?.rows ?? 0) && (left?.sum ?? 0n) === (right?.sum ?? 0n);
}

/** The buckets whose count or sum differ, with the larger side's row count (what reading it key by key costs). */
function differingBuckets(source: ReadonlyMap<number, BucketSum>, warehouse: ReadonlyMap<number, BucketSum>): Array<{ bucket: number; rows: number }> {
  const buckets = new Set([...source.keys(), ...warehouse.keys()]);
  const differing: Array<{ bucket: number; rows: number }> = [];
  for (const bucket of buckets) {
    const [left, right] = [source.get(bucket), warehouse.get(bucket)];
    if (!sameSum(left, right)) differing.push({ bucket, rows: Math.max(left?.rows ?? 0, right?.rows ?? 0) });
  }
  return differing.sort((a, b) => a.bucket - b.bucket);
}

/**
 * Buckets grouped so that each group holds about `pageRows` rows (a bucket larger than that is a page of its own) and
 * at most `maxBuckets` buckets (the length of one statement's IN list).
 */
export function pagesOf(buckets: ReadonlyArray<{ bucket: number; rows: number }>, pageRows: number, maxBuckets = Number.MAX_SAFE_INTEGER): number[][] {
  const pages: number[][] = [];
  let page: number[] = [];
  let rows = 0;
  for (const { bucket, rows: bucketRows } of buckets) {
    if (page.length > 0 && (rows + bucketRows > pageRows || page.length >= maxBuckets)) {
      pages.push(page);
      page = [];
      rows = 0;
    }
    page.push(bucket);
    rows += bucketRows;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}

function byKeyHash(rows: readonly KeyDigest[]): Map<string, KeyDigest[]> {
  const grouped = new Map<string, KeyDigest[]>();
  for (const row of rows) {
    const group = grouped.get(row.keyHash);
    if (group) group.push(row);
    else grouped.set(row.keyHash, [row]);
  }
  return grouped;
}

/** The keys whose rows differ between the sides, except those in `ignored`. */
export function compareRows(sourceRows: readonly KeyDigest[], warehouseRows: readonly KeyDigest[], ignored: ReadonlySet<string>): DifferingKeyFound[] {
  const source = byKeyHash(sourceRows);
  const warehouse = byKeyHash(warehouseRows);
  const differences: DifferingKeyFound[] = [];
  for (const keyHash of new Set([...source.keys(), ...warehouse.keys()])) {
    if (ignored.has(keyHash)) continue;
    const difference = differenceOf(source.get(keyHash) ?? [], warehouse.get(keyHash) ?? []);
    if (difference === null) continue;
    const row = source.get(keyHash)?.[0] ?? warehouse.get(keyHash)?.[0];
    differences.push({ keyHash, key: row?.key ?? [], difference });
  }
  return differences;
}

function differenceOf(source: readonly KeyDigest[], warehouse: readonly KeyDigest[]): DifferenceKind | null {
  if (warehouse.length === 0) return source.length === 0 ? null : 'missing';
  if (source.length === 0 || warehouse.length > 1) return 'extra';
  return source[0]?.digest === warehouse[0]?.digest ? null : 'different';
}

/**
 * When a change batch is applied by rebuilding its table instead of deleting and inserting each changed key, on an
 * engine that can (BENCHMARKS.md, "A rewrite applied as a rewrite": on a 2M-row keyed PostgreSQL table, delete + insert
 * cost about 1 s + 13 s × the share of rows changed, a rebuild 4–5 s whatever the share; they met between 20 % and 35 %).
 * The worker's REBUILD_PERCENT and REBUILD_MIN_ROWS.
 */
export interface RebuildThreshold {
  /** The share of the table's rows a batch must change at least; 0 never rebuilds. */
  share: number;
  /** The rows a batch must change at least: below it, delete + insert costs under a second and takes no exclusive lock. */
  minRows: number;
}

export const DEFAULT_REBUILD_THRESHOLD: RebuildThreshold = { share: 0.3, minRows: 10_000 };

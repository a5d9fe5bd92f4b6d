import type { TableSnapshot } from './replication-snapshot';

/** How far a table's seed (or reseed) has come, from one Describe answer. */
export interface SeedProgress {
  /** 0..1; null while the estimate is unknown (0 rows estimated). */
  fraction: number | null;
  rowsSeeded: number;
  rowsEstimated: number;
  /** Average since the seed was claimed; null before any row or while no work is in flight. */
  rowsPerSecond: number | null;
  /** Seconds left at that rate; null without a rate or an estimate. */
  etaSeconds: number | null;
}

/**
 * Rate and ETA use the server's own `inFlightSeconds` (time since the seed's claim, when rowsSeeded restarts at
 * 0), so the client's clock and the poll interval play no part and the first frame already has them.
 */
export function seedProgress(table: Pick<TableSnapshot, 'rowsSeeded' | 'rowsEstimated' | 'inFlightSeconds'>): SeedProgress {
  const { rowsSeeded, rowsEstimated, inFlightSeconds } = table;
  // Estimates come from statistics and may fall short of the real count: never past 100 %.
  const fraction = rowsEstimated > 0 ? Math.min(1, rowsSeeded / rowsEstimated) : null;
  const rowsPerSecond = inFlightSeconds !== null && inFlightSeconds > 0 && rowsSeeded > 0 ? rowsSeeded / inFlightSeconds : null;
  const rowsLeft = Math.max(0, rowsEstimated - rowsSeeded);
  const etaSeconds = rowsPerSecond !== null && rowsEstimated > 0 ? rowsLeft / rowsPerSecond : null;
  return { fraction, rowsSeeded, rowsEstimated, rowsPerSecond, etaSeconds };
}

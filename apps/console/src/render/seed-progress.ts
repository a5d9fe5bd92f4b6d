import type { DescribedTable } from '../api/wire-types.js';

/** Phases in which a table copies its rows and shows a progress bar. */
export const COPYING_PHASES: ReadonlySet<string> = new Set(['Seeding', 'Reseeding']);

export interface SeedProgress {
  rowsCopied: number;
  rowsEstimated: number;
  /** 0-100; the estimate is the source's statistics, so a copy can pass it (the bar then stays full). */
  percent: number;
  /** Rows per second, null until it can be measured. */
  rate: number | null;
  /** Seconds to the estimate at that rate, null without a rate or once past the estimate. */
  etaSeconds: number | null;
}

interface Sample {
  at: number;
  rows: number;
}

/** How far back rates are measured: long enough to span a few seed parts, short enough to follow changes. */
const RATE_WINDOW_MS = 60_000;

/**
 * Seeding progress per table from successive Describe answers. The rate is measured between samples the page
 * took itself (rows copied are reported per seed part, so they rise in steps); before two samples differ it falls
 * back to rows copied since the seed's work began.
 */
export class SeedProgressTracker {
  private readonly samples = new Map<string, Sample[]>();

  observe(table: DescribedTable, now: number): SeedProgress | null {
    if (!COPYING_PHASES.has(table.phase)) {
      this.samples.delete(table.name);
      return null;
    }
    const history = this.samples.get(table.name) ?? [];
    const last = history[history.length - 1];
    if (last && table.rowsSeeded < last.rows) history.length = 0; // a new seed began
    history.push({ at: now, rows: table.rowsSeeded });
    while (history.length > 2 && (history[0]?.at ?? now) < now - RATE_WINDOW_MS) history.shift();
    this.samples.set(table.name, history);
    return seedProgress(table, history, now);
  }
}

export function seedProgress(table: Pick<DescribedTable, 'rowsSeeded' | 'rowsEstimated' | 'workStartedAt'>, history: readonly Sample[], now: number): SeedProgress {
  const rowsCopied = table.rowsSeeded;
  const rowsEstimated = Math.max(table.rowsEstimated, 0);
  const first = history[0];
  const last = history[history.length - 1];
  let rate: number | null = null;
  if (first && last && last.rows > first.rows && last.at > first.at) {
    rate = ((last.rows - first.rows) * 1000) / (last.at - first.at);
  } else if (table.workStartedAt !== undefined && rowsCopied > 0) {
    const elapsedMs = now - Date.parse(table.workStartedAt);
    if (elapsedMs > 0) rate = (rowsCopied * 1000) / elapsedMs;
  }
  const remaining = rowsEstimated - rowsCopied;
  return {
    rowsCopied,
    rowsEstimated,
    percent: rowsEstimated > 0 ? Math.min(100, (rowsCopied / rowsEstimated) * 100) : 0,
    rate,
    etaSeconds: rate !== null && rate > 0 && remaining > 0 ? remaining / rate : null,
  };
}

/**
 * How long staging and warehouse remember the id of a batch they applied. A batch arrives again only while
 * its work is unfinished: its rows leave JetStream after a day, and the registry issues new work from the
 * table's watermark, which has moved past every batch that was loaded. A week leaves a wide margin.
 */
export const BATCH_LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Housekeeping (expired files, the batch log) of one replication runs at most this often per worker. */
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/** The moment before which applied batches are forgotten. */
export function batchLogCutoff(now: number = Date.now()): Date {
  return new Date(now - BATCH_LOG_RETENTION_MS);
}

/** Says whether a keyed task is due: true at most once per interval and key (in this process). */
export class IntervalGate {
  private readonly lastRun = new Map<string, number>();

  constructor(private readonly intervalMs: number) {}

  /** True (and the interval restarts) when the key's last run is at least one interval ago or unknown. */
  due(key: string, now: number = Date.now()): boolean {
    const last = this.lastRun.get(key);
    if (last !== undefined && now - last < this.intervalMs) return false;
    this.lastRun.set(key, now);
    return true;
  }
}

import { Injectable } from '@nestjs/common';

/** A figure older than this is not shown: the replication is no longer probed here (stopped, or another registry leads). */
const STALE_AFTER_MS = 60_000;

/**
 * The WAL each replication's source keeps for its replication slot, as the change probes of this registry last heard
 * it (PostgreSQL log capture): /metrics shows it (svc_source_wal_held_bytes), so that an alert can fire before a stopped
 * or lagging service fills the source's disk.
 */
@Injectable()
export class SourceWalHeld {
  private readonly figures = new Map<string, { bytes: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  record(replicationId: string, bytes: number | undefined): void {
    if (bytes === undefined) this.figures.delete(replicationId);
    else this.figures.set(replicationId, { bytes, at: this.now() });
  }

  /** The replication's last figure; null when there is none, or it is stale. */
  bytesOf(replicationId: string): number | null {
    const figure = this.figures.get(replicationId);
    return figure !== undefined && this.now() - figure.at <= STALE_AFTER_MS ? figure.bytes : null;
  }
}

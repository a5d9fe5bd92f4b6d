import type { ChangedTablesReply, ChangedTablesRequest } from '@svc/contracts';
import type { TableRuntimeState } from '@svc/registry-store';

/**
 * What the last probe said of a table at the watermark it has now; `pending` when the replication's probes answer but
 * none has judged the table at this watermark yet (its cycle moved it since the last one started): the next will.
 */
export type ChangeVerdict = 'changed' | 'unchanged' | 'pending';

/** The tables one probe request names at the most: a request stays far below NATS's payload limit. */
export const PROBE_TABLES_PER_REQUEST = 2000;

type Ask = (request: ChangedTablesRequest) => Promise<ChangedTablesReply>;

export interface ChangeProbeSettings {
  /** A replication's probes start at least this far apart: each costs the source one pass over its tables. */
  probeIntervalMs: number;
  /** Schema stamps (a catalog read per table) are asked for at most this often, and at a replication's first probe. */
  schemaStampIntervalMs: number;
}

/**
 * Asks the source, through an extractor, which tracked tables with nothing in flight have changes past their watermark (one probe of
 * the source per request, for all of them), so that the planner gives change cycles only to those (issue 23, goal 3).
 * One probe per replication at a time; its answers hold for the watermark each table had when it was asked, so a
 * table whose cycle moved its watermark since is judged by the planner's ordinary rule until the next probe.
 */
export class ChangeProbes {
  private readonly inFlight = new Set<string>();
  /** replication → table → the answer for the version asked about. */
  private readonly answers = new Map<string, Map<string, { version: string; verdict: ChangeVerdict }>>();
  /**
   * replication → table → the schema stamp the last probe saw. A schema change records no row change: a stamp that
   * differs from the last one makes the table `changed`, so its cycle describes it. A replication's first probe (after
   * this registry started, or after a failed probe) has nothing to compare with: every table counts as changed, once.
   * A table new to a replication already probed has just been read (seeded): its stamp is
   * taken as it is.
   */
  private readonly stamps = new Map<string, Map<string, string>>();
  /** replication → when its last probe started, and when the last one that asked for stamps started. */
  private readonly startedAt = new Map<string, number>();
  private readonly stampedAt = new Map<string, number>();

  constructor(
    private readonly ask: Ask,
    private readonly settings: ChangeProbeSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Starts a probe of the replication's tracked tables with nothing in flight unless one is running; resolves when it has answered (true
   * when it found a table to cycle) or failed (false).
   */
  start(replicationId: string, tables: readonly TableRuntimeState[], onError: (error: unknown) => void): Promise<boolean> | null {
    if (this.inFlight.has(replicationId)) return null;
    const at = this.now();
    if (at - (this.startedAt.get(replicationId) ?? -Infinity) < this.settings.probeIntervalMs) return null;
    const idle = tables.filter(isProbeable);
    if (idle.length === 0) {
      this.answers.delete(replicationId);
      return null;
    }
    this.inFlight.add(replicationId);
    this.startedAt.set(replicationId, at);
    return this.probe(replicationId, idle, at)
      .catch((error: unknown) => {
        onError(error);
        return false;
      })
      .finally(() => this.inFlight.delete(replicationId));
  }

  /**
   * The last answer for the table at its current watermark; `pending` when the replication's last probe answered but not
   * for this watermark (the table was in flight then, or its watermark moved since); null while its probes do not answer.
   */
  verdict(table: Pick<TableRuntimeState, 'replicationId' | 'tableName' | 'lastVersion'>): ChangeVerdict | null {
    const answers = this.answers.get(table.replicationId);
    if (answers === undefined) return null;
    const answer = answers.get(table.tableName);
    return answer !== undefined && answer.version === table.lastVersion ? answer.verdict : 'pending';
  }

  /**
   * Forgets a replication (its probe failed, or it was deleted): its next probe judges every table afresh, and a
   * schema change seen before but not yet cycled is not lost (every table counts as first seen).
   */
  forget(replicationId: string): void {
    this.answers.delete(replicationId);
    this.stamps.delete(replicationId);
    this.stampedAt.delete(replicationId);
  }

  private async probe(replicationId: string, idle: readonly TableRuntimeState[], at: number): Promise<boolean> {
    const answers = new Map<string, { version: string; verdict: ChangeVerdict }>();
    const earlier = this.answers.get(replicationId);
    const known = this.stamps.get(replicationId);
    const seen = known ?? new Map<string, string>();
    // A table new to the stamps (just seeded) takes the stamp it has at its first probe as
    // its baseline, so that probe must read stamps: a definition change after it would otherwise be taken as the baseline.
    const withStamps =
      known === undefined ||
      idle.some((table) => !known.has(table.tableName)) ||
      at - (this.stampedAt.get(replicationId) ?? -Infinity) >= this.settings.schemaStampIntervalMs;
    for (let start = 0; start < idle.length; start += PROBE_TABLES_PER_REQUEST) {
      const asked = idle.slice(start, start + PROBE_TABLES_PER_REQUEST).map((table) => ({
        tableName: table.tableName,
        version: table.lastVersion ?? '',
        ...(table.lastIncarnation !== null && { incarnation: table.lastIncarnation }),
      }));
      const reply = await this.ask({ replicationId, tables: asked, schemaStamps: withStamps });
      const changed = new Set([...reply.changed, ...reply.unknown]);
      for (const { tableName, version } of asked) {
        const stamp = reply.schemaStamps[tableName];
        const last = seen.get(tableName);
        // Without stamps asked for, a table that is gone is among `unknown`; with them, a missing stamp means the same.
        const schemaMoved = withStamps && (stamp === undefined || (last === undefined ? known === undefined : last !== stamp));
        if (stamp !== undefined) seen.set(tableName, stamp);
        // A table found changed keeps that verdict until its watermark moves (its cycle ran), whatever later probes see.
        const before = earlier?.get(tableName);
        const stillDue = before !== undefined && before.version === version && before.verdict === 'changed';
        answers.set(tableName, { version, verdict: changed.has(tableName) || schemaMoved || stillDue ? 'changed' : 'unchanged' });
      }
    }
    this.stamps.set(replicationId, seen);
    if (withStamps) this.stampedAt.set(replicationId, at);
    this.answers.set(replicationId, answers);
    return [...answers.values()].some((answer) => answer.verdict === 'changed');
  }
}

/** A tracked table with a watermark and nothing in flight: the probe decides whether it gets the next cycle. */
function isProbeable(table: TableRuntimeState): boolean {
  return table.phase === 'Tracking' && table.lastVersion !== null && table.inFlightWorkId === null;
}

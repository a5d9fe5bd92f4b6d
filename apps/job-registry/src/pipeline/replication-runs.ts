import type { ServiceConfiguration } from '@svc/contracts';

/**
 * parallel: every replication runs whenever it has work; limited: at most N replications have a run in
 * progress (SerializeReplications = 1, else ParallelDatabaseReplicationsLimit); auto: one at a time after
 * a service restart, until every replication that had work then has completed a run.
 */
export type SerializationMode = 'parallel' | 'limited' | 'auto';

export interface RunCandidate {
  replicationId: string;
  /** SerializedCtProcessTimeoutInMinutes: past it, a run no longer holds its slot in limited mode. */
  serializedTimeoutMinutes: number;
  /** AutoSerializedCtProcessTimeoutInMinutes: the same in auto mode. */
  autoSerializedTimeoutMinutes: number;
  /** Some of its work is in flight. */
  busy: boolean;
}

export interface AdmissionInput {
  /** Replications that may move data now, in creation order. */
  candidates: RunCandidate[];
  /** Whether the replication has work due among its tables not served since `since`. */
  hasDueWork(replicationId: string, since: Date): boolean;
  service: Pick<ServiceConfiguration, 'serializeReplications' | 'parallelDatabaseReplicationsLimit'>;
}

export interface Admission {
  mode: SerializationMode;
  /**
   * Replications that may get work now, with the start of their run: within a run each table gets at most
   * one unit of work (tables served since the start wait for the next run). Null: no run, no restriction.
   */
  admitted: Map<string, Date | null>;
}

/** Configured concurrency: null for no limit. */
export function configuredLimit(service: AdmissionInput['service']): number | null {
  if (service.serializeReplications) return 1;
  return service.parallelDatabaseReplicationsLimit > 0 ? service.parallelDatabaseReplicationsLimit : null;
}

/**
 * Which replications run (DESIGN §7, seed §2.2 SerializedCtProcessTimeoutInMinutes and
 * AutoSerializedCtProcessTimeoutInMinutes). A run is one pass over a replication's due tables; when it
 * ends the replication queues again behind those that waited longer. Runs that exceed their timeout no
 * longer hold a slot, so the next queued replication starts beside them. State lives in the scheduler
 * that leads; a new leader is a restart and begins in auto mode.
 */
export class ReplicationRuns {
  private readonly runs = new Map<string, Date>();
  private readonly lastRunEndedAt = new Map<string, number>();
  /** Runs taken over from work already in flight: they do not count as a run after the restart. */
  private readonly adopted = new Set<string>();
  private autoPending: Set<string> | null = null;

  constructor(private readonly minuteMs: number) {}

  /** After a restart: serialize until each of these replications has completed a run. */
  beginAutoSerialization(replicationIds: string[]): void {
    this.autoPending = new Set(replicationIds);
  }

  /** The mode the last admission left in force (for Describe-like reporting and tests). */
  modeFor(service: AdmissionInput['service']): SerializationMode {
    if (this.autoPending) return 'auto';
    return configuredLimit(service) === null ? 'parallel' : 'limited';
  }

  admit(now: Date, input: AdmissionInput): Admission {
    const eligible = new Map(input.candidates.map((candidate) => [candidate.replicationId, candidate]));
    this.forgetIneligible(eligible);
    this.endFinishedRuns(now, eligible, input);
    this.settleAutoSerialization(now, eligible, input);

    const limit = this.autoPending ? 1 : configuredLimit(input.service);
    const mode = this.modeFor(input.service);
    if (limit === null) {
      this.runs.clear();
      this.adopted.clear();
      return { mode, admitted: new Map(input.candidates.map((candidate) => [candidate.replicationId, null])) };
    }

    // Work already in flight (from before a restart, or a switch of mode) runs whatever the limit says.
    for (const candidate of input.candidates) {
      if (candidate.busy && !this.runs.has(candidate.replicationId)) {
        this.runs.set(candidate.replicationId, now);
        this.adopted.add(candidate.replicationId);
      }
    }
    let holding = [...this.runs].filter(([id, startedAt]) => !this.overtime(now, startedAt, eligible.get(id), mode)).length;
    for (const candidate of this.queue(now, input)) {
      if (holding >= limit) break;
      this.runs.set(candidate.replicationId, now);
      holding += 1;
    }
    return { mode, admitted: new Map(this.runs) };
  }

  private forgetIneligible(eligible: Map<string, RunCandidate>): void {
    for (const id of [...this.runs.keys()]) {
      if (eligible.has(id)) continue;
      this.runs.delete(id);
      this.adopted.delete(id);
    }
    for (const id of [...(this.autoPending ?? [])]) if (!eligible.has(id)) this.autoPending?.delete(id);
  }

  private endFinishedRuns(now: Date, eligible: Map<string, RunCandidate>, input: AdmissionInput): void {
    for (const [id, startedAt] of [...this.runs]) {
      if (eligible.get(id)?.busy || input.hasDueWork(id, startedAt)) continue;
      this.runs.delete(id);
      this.lastRunEndedAt.set(id, now.getTime());
      if (!this.adopted.delete(id)) this.autoPending?.delete(id);
    }
  }

  /** A replication with nothing to do needs no run to leave auto mode; an empty set ends it. */
  private settleAutoSerialization(now: Date, eligible: Map<string, RunCandidate>, input: AdmissionInput): void {
    if (!this.autoPending) return;
    for (const id of [...this.autoPending]) {
      if (!this.runs.has(id) && !eligible.get(id)?.busy && !input.hasDueWork(id, now)) this.autoPending.delete(id);
    }
    if (this.autoPending.size === 0) this.autoPending = null;
  }

  private overtime(now: Date, startedAt: Date, candidate: RunCandidate | undefined, mode: SerializationMode): boolean {
    if (!candidate) return false;
    const minutes = mode === 'auto' ? candidate.autoSerializedTimeoutMinutes : candidate.serializedTimeoutMinutes;
    return now.getTime() - startedAt.getTime() > minutes * this.minuteMs;
  }

  /** Replications waiting for a run: the one whose last run ended longest ago first (never run: first of all). */
  private queue(now: Date, input: AdmissionInput): RunCandidate[] {
    const waiting = input.candidates.filter((candidate) => !this.runs.has(candidate.replicationId) && input.hasDueWork(candidate.replicationId, now));
    const endedAt = (candidate: RunCandidate) => this.lastRunEndedAt.get(candidate.replicationId) ?? Number.NEGATIVE_INFINITY;
    return waiting.sort((a, b) => (endedAt(a) === endedAt(b) ? 0 : endedAt(a) - endedAt(b)));
  }
}

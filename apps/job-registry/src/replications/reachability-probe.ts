import type { S3ServiceSettings } from '@svc/config';
import type { ListedTable, RetentionPeriod, TableRef } from '@svc/contracts';
import {
  checkReachability,
  checkSourceCapture,
  checkTargetPolicy,
  listSourceTables,
  prepareStaging,
  type DatabaseTarget,
  type PreparedStaging,
  type ReachabilityTarget,
  type StagingPreparationTarget,
  type TargetPolicy,
} from '@svc/connectors';
import type { CaptureCheck, DialPolicy } from '@svc/engines';

export type { DatabaseTarget, PreparedStaging, ReachabilityTarget, StagingPreparationTarget };

/** Connects to what a configuration names and answers one field message per failure (empty = all reachable). */
export interface ReachabilityProbe {
  check(target: ReachabilityTarget): Promise<string[]>;
  /** The source's user tables (what discovery will find); throws when they cannot be listed. */
  listSourceTables(source: DatabaseTarget): Promise<ListedTable[]>;
  /** Readies the staging database before the replication is stored (compatibility level, replicated logins); problems as field messages. */
  prepareStaging(target: StagingPreparationTarget): Promise<PreparedStaging>;
  /** Whether (and how) the changes of these keyed tables can be captured for `retention`; throws when the source cannot be read. */
  checkCapture(source: DatabaseTarget, tables: readonly TableRef[], retention?: RetentionPeriod): Promise<CaptureCheck>;
}

export const REACHABILITY_PROBE = Symbol('REACHABILITY_PROBE');

/** The real probe: databases, warehouse and a write/delete in the bucket, within one deadline. */
export class ConnectorsReachabilityProbe implements ReachabilityProbe {
  constructor(private readonly options: { timeoutMs: number; s3: S3ServiceSettings; policy: TargetPolicy }) {}

  /**
   * The host policy first: a target it refuses is never contacted (no probe, no password sent). The probes then dial
   * the addresses the policy checked (pinned), not what a second resolution of the names would answer.
   */
  async check(target: ReachabilityTarget): Promise<string[]> {
    if (!target.source && !target.staging && !target.warehouse) return [];
    const verdict = await checkTargetPolicy(target, this.options.policy);
    if (verdict.problems.length) return verdict.problems;
    return checkReachability(target, { timeoutMs: this.options.timeoutMs, s3: this.options.s3, dial: { ...this.dial, pinned: verdict.pinned } });
  }

  /** Resolves again at connect, held to the same address classes (the control database is the check's alone). */
  listSourceTables(source: DatabaseTarget): Promise<ListedTable[]> {
    return listSourceTables(source.connectionString, { encrypt: source.encryptDataInTransit, timeoutMs: this.options.timeoutMs, dial: this.dial });
  }

  prepareStaging(target: StagingPreparationTarget): Promise<PreparedStaging> {
    return prepareStaging(target, this.options.timeoutMs, this.dial);
  }

  checkCapture(source: DatabaseTarget, tables: readonly TableRef[], retention?: RetentionPeriod): Promise<CaptureCheck> {
    return checkSourceCapture(source.connectionString, { encrypt: source.encryptDataInTransit, timeoutMs: this.options.timeoutMs, dial: this.dial }, tables, retention);
  }

  private get dial(): DialPolicy {
    return { allowLoopback: this.options.policy.allowLoopback };
  }
}

import type { S3ServiceSettings } from '@svc/config';
import type { ListedTable } from '@svc/contracts';
import {
  checkReachability,
  listSourceTables,
  prepareStaging,
  targetPolicyProblems,
  type DatabaseTarget,
  type PreparedStaging,
  type ReachabilityTarget,
  type StagingPreparationTarget,
  type TargetPolicy,
} from '@svc/connectors';

export type { DatabaseTarget, PreparedStaging, ReachabilityTarget, StagingPreparationTarget };

/** Connects to what a configuration names and answers one field message per failure (empty = all reachable). */
export interface ReachabilityProbe {
  check(target: ReachabilityTarget): Promise<string[]>;
  /** The source's user tables (what discovery will find); throws when they cannot be listed. */
  listSourceTables(source: DatabaseTarget): Promise<ListedTable[]>;
  /** Readies the staging database before the replication is stored (compatibility level, replicated logins); problems as field messages. */
  prepareStaging(target: StagingPreparationTarget): Promise<PreparedStaging>;
}

export const REACHABILITY_PROBE = Symbol('REACHABILITY_PROBE');

/** The real probe: databases, warehouse and a write/delete in the bucket, within one deadline. */
export class ConnectorsReachabilityProbe implements ReachabilityProbe {
  constructor(private readonly options: { timeoutMs: number; s3: S3ServiceSettings; policy: TargetPolicy }) {}

  /** The host policy first: a target it refuses is never contacted (no probe, no password sent). */
  async check(target: ReachabilityTarget): Promise<string[]> {
    if (!target.source && !target.staging && !target.warehouse) return [];
    const refused = await targetPolicyProblems(target, this.options.policy);
    if (refused.length) return refused;
    return checkReachability(target, { timeoutMs: this.options.timeoutMs, s3: this.options.s3 });
  }

  listSourceTables(source: DatabaseTarget): Promise<ListedTable[]> {
    return listSourceTables(source.connectionString, { encrypt: source.encryptDataInTransit, timeoutMs: this.options.timeoutMs });
  }

  prepareStaging(target: StagingPreparationTarget): Promise<PreparedStaging> {
    return prepareStaging(target, this.options.timeoutMs);
  }
}

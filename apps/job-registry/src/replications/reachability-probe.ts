import type { S3ServiceSettings } from '@svc/config';
import { checkReachability, type ReachabilityTarget } from '@svc/connectors';

export type { ReachabilityTarget };

/** Connects to what a configuration names and answers one field message per failure (empty = all reachable). */
export interface ReachabilityProbe {
  check(target: ReachabilityTarget): Promise<string[]>;
}

export const REACHABILITY_PROBE = Symbol('REACHABILITY_PROBE');

/** The real probe: databases, warehouse and a write/delete in the bucket, within one deadline. */
export class ConnectorsReachabilityProbe implements ReachabilityProbe {
  constructor(private readonly options: { timeoutMs: number; s3: S3ServiceSettings }) {}

  async check(target: ReachabilityTarget): Promise<string[]> {
    if (!target.source && !target.staging && !target.warehouse) return [];
    return checkReachability(target, { timeoutMs: this.options.timeoutMs, s3: this.options.s3 });
  }
}

import type { ReplicationConfig } from '@svc/contracts';

export const REPLICATION_LIFECYCLE = Symbol('REPLICATION_LIFECYCLE');

/** How long a Delete request waits for the source to be cleaned: well inside the gateway's wait; the rest is retried in the background. */
export const DELETE_RELEASE_TIMEOUT_MS = 10000;

/**
 * What a stored change of a replication means for the running job (implemented by the pipeline module,
 * so the API side does not reach into scheduling).
 */
export interface ReplicationLifecycle {
  /** An Alter was stored: reseed or cancel work where the change requires it. */
  altered(replicationId: string, before: ReplicationConfig, after: ReplicationConfig, changedFields: string[]): Promise<void>;
  /** StartReplication (or DataReplication=true): tables in Error and tables waiting out a backoff are tried now. */
  resumed(replicationId: string): Promise<void>;
  /**
   * Deletes the replication: its work is cancelled, its change tracking removed from the source (tables
   * another replication of the same source database still tracks are left alone), then its state.
   * Throws when the source could not be cleaned; the replication then stays Deleting and is retried.
   */
  remove(replicationId: string, timeoutMs?: number): Promise<void>;
}

import { PipelineSubjects, type BatchDescriptor, type WorkFailed } from '@svc/contracts';
import type { PipelinePublisher } from '@svc/messaging';
import type { FailureScope } from './failure-classifier';

/** How a unit of work failed, as the registry is told. */
export interface FailureReport {
  /** The classified reason or the service's own words: never a secret, a server's words or a row value. */
  message: string;
  /** What the driver or server said, redacted of credentials: for keys allowed to see it. */
  detail?: string;
  /** Failed after its retries (true) or for good (false). */
  retryable: boolean;
  /** What the failure concerns: its table, or the whole replication. */
  scope: FailureScope;
  /** The table must be seeded again (its data downstream is gone). */
  reseed?: boolean;
  /** The batch was refused by a fence above its epoch (WorkFailed.fencedOut). */
  fencedOut?: boolean;
}

/**
 * Tells the registry that a batch was refused by a fence above its epoch (`where`: staging or the warehouse). The
 * registry ignores it for work it released (the usual cause: cancelled or superseded work); for work it still holds as
 * current it means its control database is older than that database's record, and the table is reseeded.
 */
export function reportFencedOut(publisher: Pick<PipelinePublisher, 'publish'>, event: { workId: string; batch: BatchDescriptor }, stage: 'stage' | 'load'): Promise<void> {
  const where = stage === 'stage' ? 'staging' : 'the warehouse';
  const message =
    `${where} has applied newer work of this table than the control database knows of (its fence is above epoch ${event.batch.epoch}): ` +
    'the control database is older than it (restored from a backup?); the table is reseeded';
  return reportBatchFailure(publisher, event, stage, { message, retryable: true, scope: 'table', reseed: true, fencedOut: true });
}

/** Tells the registry that a batch's work failed at a stage (after its retries, or for good). */
export async function reportBatchFailure(
  publisher: Pick<PipelinePublisher, 'publish'>,
  event: { workId: string; batch: BatchDescriptor },
  stage: WorkFailed['stage'],
  failure: FailureReport,
): Promise<void> {
  await publisher.publish(
    PipelineSubjects.workFailed,
    {
      workId: event.workId,
      replicationId: event.batch.replicationId,
      table: event.batch.definition.table,
      stage,
      retryable: failure.retryable,
      message: failure.message,
      ...(failure.detail !== undefined && { detail: failure.detail }),
      scope: failure.scope,
      ...(failure.reseed && { reseed: true }),
      ...(failure.fencedOut && { fencedOut: true }),
      ...(event.batch.configVersion !== undefined && { configVersion: event.batch.configVersion }),
      epoch: event.batch.epoch,
      failedAt: new Date().toISOString(),
    },
    `${event.workId}/${event.batch.batchId}/failed`,
  );
}

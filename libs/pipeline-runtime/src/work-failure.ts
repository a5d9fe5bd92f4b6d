import { PipelineSubjects, type BatchDescriptor, type WorkFailed } from '@svc/contracts';
import type { PipelinePublisher } from '@svc/messaging';

/** Tells the registry that a batch's work failed at a stage (after its retries, or for good). */
export async function reportBatchFailure(
  publisher: PipelinePublisher,
  event: { workId: string; batch: BatchDescriptor },
  stage: WorkFailed['stage'],
  message: string,
  retryable: boolean,
): Promise<void> {
  await publisher.publish(
    PipelineSubjects.workFailed,
    {
      workId: event.workId,
      replicationId: event.batch.replicationId,
      table: event.batch.definition.table,
      stage,
      retryable,
      message,
      failedAt: new Date().toISOString(),
    },
    `${event.workId}/${event.batch.batchId}/failed`,
  );
}

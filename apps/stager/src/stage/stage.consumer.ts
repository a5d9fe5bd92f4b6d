import { PipelineConsumers, isBatchExtracted, isExtractedWork, isWorkGroup, tableKey, type BatchExtracted, type PipelineSubjects } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified } from '@svc/pipeline-runtime';
import type { StageService } from './stage.service';

/** The stagers' shared durable consumer of extracted batches: one table's batch, or a group's. */
export function stageConsumer(service: StageService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchExtracted> = {
    ...PipelineConsumers.stager,
    concurrency: settings.concurrency,
    guard: isExtractedWork,
    handle: (work, context) => {
      // A group's members go on alone when it cannot be applied: the group itself has nothing to report.
      if (isWorkGroup(work)) return runClassified(() => service.stageGroup(work, context), { endpoint: 'Staging' }, () => Promise.resolve());
      return runClassified(() => service.stage(work, context), { endpoint: 'Staging', table: tableKey(work.batch.definition.table) }, ({ reason, scope, detail }) =>
        service.fail(work, { message: reason, retryable: false, scope, ...(detail !== undefined && { detail }) }),
      );
    },
    onGiveUp: async (payload, reason, detail) => {
      const members: unknown[] = isExtractedWork(payload) && isWorkGroup(payload) ? payload.group : [payload];
      for (const member of members.filter((one): one is BatchExtracted => isBatchExtracted(one))) {
        await service.fail(member, { message: reason, retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

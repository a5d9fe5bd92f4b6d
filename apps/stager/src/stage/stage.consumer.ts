import { PipelineConsumers, isBatchExtracted, isExtractedWork, isWorkGroup, tableKey, type BatchExtracted, type PipelineSubjects } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runWorkOrGroup } from '@svc/pipeline-runtime';
import type { StageService } from './stage.service';

/** The stagers' shared durable consumer of extracted batches: one table's batch, or a group's. */
export function stageConsumer(service: StageService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchExtracted> = {
    ...PipelineConsumers.stager,
    concurrency: settings.concurrency,
    guard: isExtractedWork,
    handle: (work, context) =>
      runWorkOrGroup(work, {
        endpoint: 'Staging',
        tableOf: (event) => tableKey(event.batch.definition.table),
        alone: (event) => service.stage(event, context),
        group: (group) => service.stageGroup(group, context),
        fail: (event, failure) => service.fail(event, failure),
      }),
    onGiveUp: async (payload, reason, detail) => {
      const members: unknown[] = isExtractedWork(payload) && isWorkGroup(payload) ? payload.group : [payload];
      for (const member of members.filter((one): one is BatchExtracted => isBatchExtracted(one))) {
        await service.fail(member, { message: reason, retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

import { PipelineConsumers, isBatchExtracted, isExtractedWork, isWorkGroup, tableKey, type BatchExtracted, type PipelineSubjects } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified, runEachAlone } from '@svc/pipeline-runtime';
import type { StageService } from './stage.service';

/** The stagers' shared durable consumer of extracted batches: one table's batch, or a group's. */
export function stageConsumer(service: StageService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchExtracted> = {
    ...PipelineConsumers.stager,
    concurrency: settings.concurrency,
    guard: isExtractedWork,
    handle: (work, context) => {
      const stageAlone = (event: BatchExtracted) =>
        runClassified(() => service.stage(event, context), { endpoint: 'Staging', table: tableKey(event.batch.definition.table) }, ({ reason, scope, detail }) =>
          service.fail(event, { message: reason, retryable: false, scope, ...(detail !== undefined && { detail }) }),
        );
      if (!isWorkGroup(work)) return stageAlone(work);
      // The group itself has nothing to report: its members each report their own outcome, alone when it could not carry them.
      return runClassified(
        async () =>
          runEachAlone(await service.stageGroup(work, context), stageAlone, (event, failure) =>
            service.fail(event, { message: failure.message, retryable: true, scope: 'table', ...(failure.detail !== undefined && { detail: failure.detail }) }),
          ),
        { endpoint: 'Staging' },
        () => Promise.resolve(),
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

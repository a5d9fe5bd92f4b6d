import { PipelineConsumers, tableKey, type PipelineSubjects, isBatchExtracted } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified } from '@svc/pipeline-runtime';
import type { StageService } from './stage.service';

/** The stagers' shared durable consumer of extracted batches. */
export function stageConsumer(service: StageService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchExtracted> = {
    ...PipelineConsumers.stager,
    concurrency: settings.concurrency,
    guard: isBatchExtracted,
    handle: (event, context) =>
      runClassified(() => service.stage(event, context), { endpoint: 'Staging', table: tableKey(event.batch.definition.table) }, ({ reason, scope, detail }) =>
        service.fail(event, { message: reason, retryable: false, scope, ...(detail !== undefined && { detail }) }),
      ),
    onGiveUp: async (payload, reason, detail) => {
      if (isBatchExtracted(payload)) await service.fail(payload, { message: reason, retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

import { PipelineConsumers, tableKey, type PipelineSubjects, isBatchStaged } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified } from '@svc/pipeline-runtime';
import type { LoadService } from './load.service';

/** The loaders' shared durable consumer of staged batches. */
export function loadConsumer(service: LoadService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchStaged> = {
    ...PipelineConsumers.loader,
    concurrency: settings.concurrency,
    guard: isBatchStaged,
    handle: (event, context) =>
      runClassified(() => service.load(event, context), { endpoint: 'Warehouse', table: tableKey(event.batch.definition.table) }, ({ reason, scope, detail }) =>
        service.fail(event, { message: reason, retryable: false, scope, ...(detail !== undefined && { detail }) }),
      ),
    onGiveUp: async (payload, reason, detail) => {
      if (isBatchStaged(payload)) await service.fail(payload, { message: reason, retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

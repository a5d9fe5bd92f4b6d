import { PipelineConsumers, type PipelineSubjects, isBatchStaged } from '@svc/contracts';
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
    handle: (event) => runClassified(() => service.load(event), (message, scope) => service.fail(event, { message, retryable: false, scope })),
    onGiveUp: async (payload, reason) => {
      if (isBatchStaged(payload)) await service.fail(payload, { message: reason, retryable: true, scope: 'table' });
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

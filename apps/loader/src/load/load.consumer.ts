import { PipelineSubjects, isBatchStaged } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified } from '@svc/pipeline-runtime';
import type { LoadService } from './load.service';

/** The loaders' shared durable consumer of staged batches. */
export function loadConsumer(service: LoadService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchStaged> = {
    subject: PipelineSubjects.batchStaged,
    durableName: 'loader',
    concurrency: settings.concurrency,
    guard: isBatchStaged,
    handle: (event) => runClassified(() => service.load(event), (reason) => service.fail(event, reason, false)),
    onGiveUp: async (payload, reason) => {
      if (isBatchStaged(payload)) await service.fail(payload, reason, true);
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

import { PipelineConsumers, tableKey, type PipelineSubjects, isExtractRequested } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified } from '@svc/pipeline-runtime';
import type { ExtractService } from './extract.service';

/** The extractors' shared durable consumer of work requests. */
export function extractConsumer(service: ExtractService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.extractRequested> = {
    ...PipelineConsumers.extractor,
    concurrency: settings.concurrency,
    guard: isExtractRequested,
    handle: (request, context) =>
      runClassified(() => service.extract(request, context), { endpoint: 'Source', table: tableKey(request.table) }, ({ reason, scope, detail }) =>
        service.fail(request, reason, { retryable: false, scope, ...(detail !== undefined && { detail }) }),
      ),
    onGiveUp: async (payload, reason, detail) => {
      if (isExtractRequested(payload)) await service.fail(payload, reason, { retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

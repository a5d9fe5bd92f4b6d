import { PipelineConsumers, isExtractRequested, isWorkGroup, tableKey, type ExtractRequested, type PipelineSubjects, isExtractWork } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runWorkOrGroup } from '@svc/pipeline-runtime';
import type { ExtractService } from './extract.service';

/** The extractors' shared durable consumer of work requests: one table's work, or a group's. */
export function extractConsumer(service: ExtractService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.extractRequested> = {
    ...PipelineConsumers.extractor,
    concurrency: settings.concurrency,
    guard: isExtractWork,
    handle: (work, context) =>
      runWorkOrGroup(work, {
        endpoint: 'Source',
        tableOf: (request) => tableKey(request.table),
        alone: (request) => service.extract(request, context),
        // A member that failed in the group is read again under the new attempt extractGroup took for it.
        memberAlone: (attempt) => service.extractAlone(attempt),
        group: (group) => service.extractGroup(group, context),
        fail: (request, { message, ...options }) => service.fail(request, message, options),
      }),
    onGiveUp: async (payload, reason, detail) => {
      const members: unknown[] = isExtractWork(payload) && isWorkGroup(payload) ? payload.group : [payload];
      for (const member of members.filter((one): one is ExtractRequested => isExtractRequested(one))) {
        await service.fail(member, reason, { retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

import { PipelineConsumers, isExtractRequested, isWorkGroup, tableKey, type ExtractRequested, type PipelineSubjects, isExtractWork } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified } from '@svc/pipeline-runtime';
import type { ExtractService } from './extract.service';

/** The extractors' shared durable consumer of work requests: one table's work, or a group's. */
export function extractConsumer(service: ExtractService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.extractRequested> = {
    ...PipelineConsumers.extractor,
    concurrency: settings.concurrency,
    guard: isExtractWork,
    handle: (work, context) => {
      // A group's members each report their own failures (or go on alone): the group itself has nothing to report.
      if (isWorkGroup(work)) return runClassified(() => service.extractGroup(work, context), { endpoint: 'Source' }, () => Promise.resolve());
      return runClassified(() => service.extract(work, context), { endpoint: 'Source', table: tableKey(work.table) }, ({ reason, scope, detail }) =>
        service.fail(work, reason, { retryable: false, scope, ...(detail !== undefined && { detail }) }),
      );
    },
    onGiveUp: async (payload, reason, detail) => {
      const members: unknown[] = isExtractWork(payload) && isWorkGroup(payload) ? payload.group : [payload];
      for (const member of members.filter((one): one is ExtractRequested => isExtractRequested(one))) {
        await service.fail(member, reason, { retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

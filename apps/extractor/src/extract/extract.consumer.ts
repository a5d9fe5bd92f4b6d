import { PipelineConsumers, isExtractRequested, isWorkGroup, tableKey, type ExtractRequested, type PipelineSubjects, isExtractWork } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified, runEachAlone } from '@svc/pipeline-runtime';
import type { ExtractService } from './extract.service';

/** The extractors' shared durable consumer of work requests: one table's work, or a group's. */
export function extractConsumer(service: ExtractService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.extractRequested> = {
    ...PipelineConsumers.extractor,
    concurrency: settings.concurrency,
    guard: isExtractWork,
    handle: (work, context) => {
      const classified = (request: ExtractRequested, read: () => Promise<void>) =>
        runClassified(read, { endpoint: 'Source', table: tableKey(request.table) }, ({ reason, scope, detail }) =>
          service.fail(request, reason, { retryable: false, scope, ...(detail !== undefined && { detail }) }),
        );
      if (!isWorkGroup(work)) return classified(work, () => service.extract(work, context));
      // The group itself has nothing to report: its members each report their own outcome, alone when they failed in it.
      return runClassified(
        async () =>
          runEachAlone(
            await service.extractGroup(work, context),
            (member) => classified(member, () => service.extractAlone(member)),
            (member, failure) => service.fail(member, failure.message, { retryable: true, scope: 'table', ...(failure.detail !== undefined && { detail: failure.detail }) }),
          ),
        { endpoint: 'Source' },
        () => Promise.resolve(),
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

import { PipelineConsumers, isBatchStaged, isStagedWork, isWorkGroup, tableKey, type BatchStaged, type PipelineSubjects } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runClassified, runEachAlone } from '@svc/pipeline-runtime';
import type { LoadService } from './load.service';

/** The loaders' shared durable consumer of staged batches: one table's batch, or a group's. */
export function loadConsumer(service: LoadService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchStaged> = {
    ...PipelineConsumers.loader,
    concurrency: settings.concurrency,
    guard: isStagedWork,
    handle: (work, context) => {
      const loadAlone = (event: BatchStaged) =>
        runClassified(() => service.load(event, context), { endpoint: 'Warehouse', table: tableKey(event.batch.definition.table) }, ({ reason, scope, detail }) =>
          service.fail(event, { message: reason, retryable: false, scope, ...(detail !== undefined && { detail }) }),
        );
      if (!isWorkGroup(work)) return loadAlone(work);
      // The group itself has nothing to report: its members each report their own outcome, alone when it could not carry them.
      return runClassified(
        async () =>
          runEachAlone(await service.loadGroup(work), loadAlone, (event, failure) =>
            service.fail(event, { message: failure.message, retryable: true, scope: 'table', ...(failure.detail !== undefined && { detail: failure.detail }) }),
          ),
        { endpoint: 'Warehouse' },
        () => Promise.resolve(),
      );
    },
    onGiveUp: async (payload, reason, detail) => {
      const members: unknown[] = isStagedWork(payload) && isWorkGroup(payload) ? payload.group : [payload];
      for (const member of members.filter((one): one is BatchStaged => isBatchStaged(one))) {
        await service.fail(member, { message: reason, retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

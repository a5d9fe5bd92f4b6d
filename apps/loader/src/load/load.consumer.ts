import { PipelineConsumers, isBatchStaged, isStagedWork, isWorkGroup, tableKey, type BatchStaged, type PipelineSubjects } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { runWorkOrGroup } from '@svc/pipeline-runtime';
import type { LoadService } from './load.service';

/** The loaders' shared durable consumer of staged batches: one table's batch, or a group's. */
export function loadConsumer(service: LoadService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.batchStaged> = {
    ...PipelineConsumers.loader,
    concurrency: settings.concurrency,
    guard: isStagedWork,
    handle: (work, context) =>
      runWorkOrGroup(work, {
        endpoint: 'Warehouse',
        tableOf: (event) => tableKey(event.batch.definition.table),
        alone: (event) => service.load(event, context),
        group: (group) => service.loadGroup(group),
        fail: (event, failure) => service.fail(event, failure),
      }),
    onGiveUp: async (payload, reason, detail) => {
      const members: unknown[] = isStagedWork(payload) && isWorkGroup(payload) ? payload.group : [payload];
      for (const member of members.filter((one): one is BatchStaged => isBatchStaged(one))) {
        await service.fail(member, { message: reason, retryable: true, scope: 'table', ...(detail !== undefined && { detail }) });
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}

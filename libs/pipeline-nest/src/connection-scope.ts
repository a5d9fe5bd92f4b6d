import type { PipelineSubject } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import { inConnectionScope } from '@svc/engines';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { PoolSizings } from '@svc/pipeline-runtime';

/**
 * Each message is handled in a connection scope of its own: the pools' gates record the connections it holds and
 * refuse it another of a pool it already holds one of (ConnectionGate), which would otherwise wait on itself.
 */
export function inOwnConnectionScope<S extends PipelineSubject>(options: PipelineWorkerOptions<S>): PipelineWorkerOptions<S> {
  return { ...options, handle: (payload, context) => inConnectionScope(() => options.handle(payload, context)) };
}

/** The engines' pools as the worker's settings size them, each saying which settings change it when it is busy. */
export function poolSizingsOf(config: Pick<WorkerConfig, 'pools' | 'concurrency'>): PoolSizings {
  const { pools, concurrency } = config;
  const sizing = (maxConnections: number, setting: string) => ({
    maxConnections,
    waitMs: pools.waitMs,
    sizeSetting:
      `${setting} (now ${maxConnections}) sets the connections each worker instance keeps to it; WORKER_CONCURRENCY (now ${concurrency}) ` +
      'and the replication\'s ParallelTablesLimit, the work sharing them; POOL_WAIT_SECONDS, how long a work waits for one.',
  });
  return {
    source: sizing(pools.sourceConnections, 'SOURCE_MAX_CONNECTIONS'),
    staging: sizing(pools.stagingConnections, 'STAGING_MAX_CONNECTIONS'),
    warehouse: sizing(pools.warehouseConnections, 'WAREHOUSE_MAX_CONNECTIONS'),
  };
}

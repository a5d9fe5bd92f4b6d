import type { ConnectionGateOptions } from './connection-gate';

/** A connector's pool as the worker sizes it from the work it serves (WorkerConfig's pool settings). */
export interface PoolSizing {
  maxConnections: number;
  /** How long a work waits for a free connection before the pool is reported busy and the work retried. */
  waitMs: number;
  /** The settings that change the pool's size and the work sharing it, said when it is busy. */
  sizeSetting: string;
}

/** How long a work waits for a connection when nothing says otherwise. */
export const DEFAULT_POOL_WAIT_MS = 60_000;

/** A connector's pool size and gate: its sizing when the worker gave one, else the connector's own defaults. */
export function poolGateOptions(
  owner: string,
  options: { maxConnections?: number; pool?: Partial<PoolSizing> },
  defaultMaxConnections: number,
): { max: number; gate: Omit<ConnectionGateOptions, 'size'> } {
  const max = options.pool?.maxConnections ?? options.maxConnections ?? defaultMaxConnections;
  return {
    max,
    gate: {
      owner,
      waitMs: options.pool?.waitMs ?? DEFAULT_POOL_WAIT_MS,
      sizeSetting: options.pool?.sizeSetting ?? `The pool holds ${max} connections.`,
    },
  };
}

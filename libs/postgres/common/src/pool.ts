import { GatedPgPool, type ConnectionGateOptions } from '@svc/engines';
import type { PoolConfig } from 'pg';

/**
 * A connection pool that survives its connections dying (a server restart, a dropped database) without
 * crashing the process. pg emits a dead socket as an 'error' event: on the pool for an idle connection, on
 * the client itself for one that is checked out (pg-pool only listens while a client is idle). Each needs a
 * listener, or Node treats the event as an uncaught exception. A checked-out client that died fails its
 * current and next query and is discarded when released; the next checkout connects anew. Connections are
 * handed out through the pool's gate (GatedPgPool): in line, never to a work that already holds one.
 */
export function createPool(config: PoolConfig, gate: Omit<ConnectionGateOptions, 'size'>): GatedPgPool {
  const pool = new GatedPgPool(config, gate);
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

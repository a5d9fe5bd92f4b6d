import { Pool, type PoolConfig } from 'pg';

/**
 * A connection pool that survives its connections dying (a server restart, a dropped database) without
 * crashing the process. pg emits a dead socket as an 'error' event: on the pool for an idle connection, on
 * the client itself for one that is checked out (pg-pool only listens while a client is idle). Each needs a
 * listener, or Node treats the event as an uncaught exception. A checked-out client that died fails its
 * current and next query and is discarded when released; the next checkout connects anew.
 */
export function createPool(config: PoolConfig): Pool {
  const pool = new Pool(config);
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

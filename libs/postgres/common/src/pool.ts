import { Pool, type PoolConfig } from 'pg';

/**
 * A connection pool that survives its idle connections dying (a server restart, a dropped database): the
 * pool discards such a connection and the next checkout connects anew. Without the listener, the pool's
 * 'error' event would crash the process.
 */
export function createPool(config: PoolConfig): Pool {
  const pool = new Pool(config);
  pool.on('error', () => undefined);
  return pool;
}

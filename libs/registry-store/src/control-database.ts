import { withPoolConnections } from '@svc/engines';
import type { Pool, PoolClient } from 'pg';

/*
 * The registry keeps its own data in PostgreSQL through node-postgres directly: these few helpers are all it needs,
 * so it depends on no engine plug-in (libs/postgres serves replications' sources, stagings and warehouses).
 */

/** A PostgreSQL identifier in double quotes, inner quotes doubled: safe for any name. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Runs `work` in one transaction on a pooled client: commits when it returns, rolls back when it throws. A client
 * whose rollback failed (its session is broken) is discarded instead of going back to the pool. Inside `work` the
 * control pool gives nothing more (its gate refuses): a transaction never waits on the pool while holding one of its
 * connections.
 */
export function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withPoolConnections(pool, 1, () => transactionOn(pool, work));
}

async function transactionOn<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    await rollbackAndRelease(client);
    throw error;
  }
}

async function rollbackAndRelease(client: PoolClient): Promise<void> {
  try {
    await client.query('ROLLBACK');
    client.release();
  } catch (rollbackError) {
    client.release(rollbackError instanceof Error ? rollbackError : true);
  }
}

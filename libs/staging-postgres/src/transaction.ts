import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` in one transaction. `work` returns `commit: false` to roll back a transaction that found
 * nothing to do. A client whose rollback failed is discarded, not returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<{ commit: boolean; result: T }>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const { commit, result } = await work(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error('rollback failed');
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

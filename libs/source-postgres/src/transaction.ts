import type { Pool, PoolClient } from 'pg';

/** Runs `work` in one transaction on a pooled client; rolls back on failure. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    client.release();
    return result;
  } catch (error) {
    await rollbackAndRelease(client);
    throw error;
  }
}

/** Ends a failed transaction; the client goes back to the pool if the rollback worked, else it is discarded. */
export async function rollbackAndRelease(client: PoolClient): Promise<void> {
  try {
    await client.query('rollback');
    client.release();
  } catch (error) {
    client.release(error instanceof Error ? error : true);
  }
}

/** Begins a transaction with `beginSql` and hands the client over; on failure it is discarded and the error rethrown. */
export async function openTransaction(pool: Pool, beginSql: string): Promise<PoolClient> {
  const client = await pool.connect();
  try {
    await client.query(beginSql);
    return client;
  } catch (error) {
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

import { inTransaction as inCommonTransaction } from '@svc/postgres/common';
import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` in one transaction. `work` returns `commit: false` to roll back a transaction that found
 * nothing to do. A client whose rollback failed is discarded, not returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<{ commit: boolean; result: T }>): Promise<T> {
  return inCommonTransaction(pool, async (client, control) => {
    const { commit, result } = await work(client);
    if (!commit) control.rollbackAtEnd();
    return result;
  });
}

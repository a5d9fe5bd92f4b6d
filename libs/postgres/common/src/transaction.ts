import { isClientQueryTimeout, withPoolConnections } from '@svc/engines';
import type { Pool, PoolClient } from 'pg';

/** Lets a transaction's work end it with a rollback although it succeeded (it found nothing to do). */
export interface TransactionControl {
  rollbackAtEnd(): void;
}

/**
 * Runs `work` in one transaction on a pooled client: commits when it returns (unless it asked for a
 * rollback), rolls back when it throws. A client whose rollback failed (a session broken mid-COPY) is
 * discarded instead of going back to the pool. Inside `work`, the pool gives nothing more (its gate refuses): the work
 * uses the client it was given, and never waits on the pool while holding one of its connections.
 */
export function inTransaction<T>(pool: Pool, work: (client: PoolClient, control: TransactionControl) => Promise<T>): Promise<T> {
  return withPoolConnections(pool, 1, () => transactionOn(pool, work));
}

async function transactionOn<T>(pool: Pool, work: (client: PoolClient, control: TransactionControl) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let commit = true;
  try {
    await client.query('BEGIN');
    const result = await work(client, { rollbackAtEnd: () => (commit = false) });
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    client.release();
    return result;
  } catch (error) {
    await rollbackAndRelease(client, error);
    throw error;
  }
}

/**
 * Ends a failed transaction; the client goes back to the pool if the rollback worked, else it is discarded. A client
 * whose statement got no answer within its query_timeout (`failure`) is discarded at once: a ROLLBACK would wait
 * behind that statement.
 */
export async function rollbackAndRelease(client: PoolClient, failure?: unknown): Promise<void> {
  if (isClientQueryTimeout(failure)) {
    client.release(true);
    return;
  }
  try {
    await client.query('ROLLBACK');
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

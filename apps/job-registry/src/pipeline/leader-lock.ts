import type { Pool, PoolClient } from 'pg';

/** Arbitrary constant naming the scheduler's PostgreSQL advisory lock. */
const SCHEDULER_LOCK_KEY = 734_001;

/**
 * One active scheduler among all registry instances (DESIGN §2): the holder of a session-level advisory
 * lock. The lock dies with its connection, so a crashed leader is replaced by the next try.
 */
export class LeaderLock {
  private client: PoolClient | null = null;

  constructor(private readonly pool: Pool) {}

  get held(): boolean {
    return this.client !== null;
  }

  /** True when this instance leads (already, or from now on). */
  async tryAcquire(): Promise<boolean> {
    if (this.client) return true;
    const client = await this.pool.connect();
    try {
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SCHEDULER_LOCK_KEY]);
      if (result.rows[0]?.locked) {
        client.on('error', () => this.lose(client));
        this.client = client;
        return true;
      }
      client.release();
      return false;
    } catch (error) {
      client.release(true);
      throw error;
    }
  }

  async release(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    await client.query('SELECT pg_advisory_unlock($1)', [SCHEDULER_LOCK_KEY]).catch(() => undefined);
    client.release();
  }

  private lose(client: PoolClient): void {
    if (this.client !== client) return;
    this.client = null;
    try {
      client.release(true);
    } catch {
      // The pool is already closed: nothing to return the connection to.
    }
  }
}

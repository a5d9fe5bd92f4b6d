import type { ClientBase } from 'pg';
import { waitUntil } from './free-port';

/** Waits until exactly `count` other sessions of the client's database wait for a lock. */
export async function waitForLockWaiters(client: ClientBase, count: number, what: string): Promise<void> {
  await waitUntil(
    async () => {
      const waiting = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      return waiting.rows[0]?.n === count;
    },
    20000,
    what,
  );
}

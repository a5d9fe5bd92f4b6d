import type { ChecksumQuery } from '@svc/engines';
import type { Pool } from 'pg';
import { CHECKSUM_SESSION_SQL } from './checksum-dialect';
import { openTransaction, rollbackAndRelease } from './transaction';

/** The statement that opens a validation snapshot: every statement of it sees the same committed rows. */
export const CHECKSUM_SNAPSHOT_SQL = `begin isolation level repeatable read read only;\n${CHECKSUM_SESSION_SQL}`;

/** One read-only snapshot on a pooled session for validation's statements; `close` ends it and returns the session. */
export async function openChecksumSession(pool: Pool, beginSql: string = CHECKSUM_SNAPSHOT_SQL): Promise<{ query: ChecksumQuery; close(): Promise<void> }> {
  const client = await openTransaction(pool, beginSql);
  let closed = false;
  return {
    query: async (sql, parameters) => (await client.query(sql, [...parameters])).rows as Record<string, unknown>[],
    close: async () => {
      if (closed) return;
      closed = true;
      await rollbackAndRelease(client);
    },
  };
}

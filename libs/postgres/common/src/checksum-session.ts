import type { ChecksumQuery } from '@svc/engines';
import type { Pool } from 'pg';
import { READ_ONLY_SNAPSHOT_SQL } from './checksum-dialect';
import { openTransaction, rollbackAndRelease } from './transaction';

/** One read-only snapshot on a pooled session for validation's statements; `close` ends it and returns the session. */
export async function openChecksumSession(pool: Pool, beginSql: string = READ_ONLY_SNAPSHOT_SQL): Promise<{ query: ChecksumQuery; close(): Promise<void> }> {
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

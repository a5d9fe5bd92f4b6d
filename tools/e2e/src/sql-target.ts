import { Client } from 'pg';

/** A database the suites can run statements on (source or warehouse side). */
export interface SqlTarget {
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function openPg(connectionString: string): Promise<SqlTarget> {
  const client = new Client({ connectionString });
  await client.connect();
  return {
    query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows,
    close: () => client.end(),
  };
}

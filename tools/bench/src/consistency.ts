import type { Pool } from 'pg';

/** Per pgbench table, a fingerprint that any lost or doubled change would move: row count and balance (or delta) sum. */
const FINGERPRINTS: Record<string, string> = {
  pgbench_accounts: 'count(*)::text || \':\' || coalesce(sum(abalance), 0)::text',
  pgbench_tellers: 'count(*)::text || \':\' || coalesce(sum(tbalance), 0)::text',
  pgbench_branches: 'count(*)::text || \':\' || coalesce(sum(bbalance), 0)::text',
  pgbench_history: 'count(*)::text || \':\' || coalesce(sum(delta), 0)::text',
};

/** The keyed pgbench tables: pgbench_history has no key as pgbench creates it, so the pipeline does not track it. */
export const FINGERPRINTED_TABLES = ['pgbench_accounts', 'pgbench_tellers', 'pgbench_branches'];

export async function fingerprints(pool: Pool, schema: string, tables: string[] = FINGERPRINTED_TABLES): Promise<Record<string, string>> {
  const values = await Promise.all(
    tables.map(async (table) => {
      const { rows } = await pool.query<{ v: string }>(`SELECT ${FINGERPRINTS[table] ?? 'NULL'} AS v FROM "${schema}"."${table}"`);
      return rows[0]?.v ?? '';
    }),
  );
  return Object.fromEntries(tables.map((table, index) => [table, values[index] ?? '']));
}

/** Polls until the warehouse's fingerprints equal the (quiet) source's; false when the deadline passes first. */
export async function waitUntilConsistent(source: Pool, warehouse: Pool, warehouseSchema: string, deadlineMs: number): Promise<boolean> {
  const deadline = performance.now() + deadlineMs;
  const expected = JSON.stringify(await fingerprints(source, 'public'));
  while (performance.now() < deadline) {
    if (JSON.stringify(await fingerprints(warehouse, warehouseSchema)) === expected) return true;
    await new Promise((done) => setTimeout(done, 100));
  }
  return false;
}

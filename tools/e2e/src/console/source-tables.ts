import { Client } from 'pg';

/** A table name that is markup: the console must show it as text (issue 12). */
export const HOSTILE_TABLE = '<img src=x onerror=alert(1)>';
export const BIG_TABLE = 'big';

/**
 * The source of the console suite: `public.big`, large enough that its seed (in 1 MB parts) lasts a while and
 * its progress can be watched, and a small table whose name is an HTML element.
 */
export async function createConsoleSource(url: string, bigRows: number): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE public.${BIG_TABLE} (id bigint PRIMARY KEY, payload text NOT NULL)`);
    await client.query(`INSERT INTO public.${BIG_TABLE} SELECT n, repeat(md5(n::text), 6) FROM generate_series(1, $1::int) AS n`, [bigRows]);
    await client.query(`CREATE TABLE public."${HOSTILE_TABLE.replace(/"/g, '""')}" (id int PRIMARY KEY, note text)`);
    await client.query(`INSERT INTO public."${HOSTILE_TABLE.replace(/"/g, '""')}" VALUES (1, '<script>alert(2)</script>'), (2, 'plain')`);
    // The seed's estimate comes from the statistics.
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

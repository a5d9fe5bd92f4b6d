import { Client } from 'pg';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { locatePostgresTools } from './postgres-tools';
import { copySchema, copyTable, copyTableTwice } from './raw-pipe';

describe('raw pipe baseline (real psql, pg_dump and PostgreSQL)', () => {
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  let source: TempDatabase;
  let target: TempDatabase;
  let second: TempDatabase;

  beforeAll(async () => {
    [source, target, second] = await Promise.all([createTempDatabase('svc_bench_rawpipe_src'), createTempDatabase('svc_bench_rawpipe_dst'), createTempDatabase('svc_bench_rawpipe_dst2')]);
    const client = new Client({ connectionString: source.url });
    await client.connect();
    await client.query(`CREATE TABLE public.pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84));
      INSERT INTO public.pgbench_accounts SELECT g, g % 3, g * 2, 'x' FROM generate_series(1, 5000) g;
      CREATE TABLE public.unrelated (id int)`);
    await client.end();
  });

  afterAll(async () => {
    await Promise.allSettled([source?.drop(), target?.drop(), second?.drop()]);
  });

  it('copies the named tables’ schema (with the key) and then their rows', async () => {
    await copySchema(tools, source.url, target.url, ['public.pgbench_accounts']);
    await expect(copyTable(tools.psql, source.url, target.url, 'public.pgbench_accounts')).resolves.toBe(5000);
    const client = new Client({ connectionString: target.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number; total: string; keyed: boolean; other: string | null }>(
        `SELECT count(*)::int AS n, sum(abalance)::text AS total,
                EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.pgbench_accounts'::regclass AND contype = 'p') AS keyed,
                to_regclass('public.unrelated')::text AS other
           FROM public.pgbench_accounts`,
      );
      expect(rows[0]).toEqual({ n: 5000, total: String(5000 * 5001), keyed: true, other: null });
    } finally {
      await client.end();
    }
  });

  it('writes one read into two databases at once (the two-write floor)', async () => {
    await copySchema(tools, source.url, second.url, ['public.pgbench_accounts']);
    const client = new Client({ connectionString: target.url });
    await client.connect();
    try {
      await client.query('TRUNCATE public.pgbench_accounts');
      await expect(copyTableTwice(tools.psql, source.url, [target.url, second.url], 'public.pgbench_accounts')).resolves.toEqual([5000, 5000]);
      const counted = await Promise.all(
        [target.url, second.url].map(async (url) => {
          const reader = new Client({ connectionString: url });
          await reader.connect();
          try {
            return (await reader.query<{ total: string }>('SELECT sum(abalance)::text AS total FROM public.pgbench_accounts')).rows[0]?.total;
          } finally {
            await reader.end();
          }
        }),
      );
      expect(counted).toEqual([String(5000 * 5001), String(5000 * 5001)]);
    } finally {
      await client.end();
    }
  });

  it('fails with psql’s message when a table is missing', async () => {
    await expect(copyTable(tools.psql, source.url, target.url, 'public.no_such_table')).rejects.toThrow(/no_such_table/);
  });
});

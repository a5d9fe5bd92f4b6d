import { loadavg } from 'node:os';
import { Client, Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { TableDefinition } from '@svc/contracts';
import type { CsvChunks, RebuildThreshold } from '@svc/engines';
import { createPostgresSource } from '@svc/postgres/source';
import { createPostgresStaging } from '@svc/postgres/staging';
import { createTempDatabase } from '@svc/testing';
import { appendSection, type MachineInfo } from './bench-report';
import type { BenchSettings } from './bench-settings';
import { machineInfo } from './machine-info';

/** Shares of the table's rows one change batch updates. */
const SHARES = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1];
const ROWS_PER_SCALE = 100_000;
/** Every batch merged key by key, whatever its share. */
const MERGE: RebuildThreshold = { share: 0, minRows: 1 };
/** Every batch rebuilds its table, whatever its share. */
const REBUILD: RebuildThreshold = { share: 1e-9, minRows: 1 };

interface Figure {
  share: number;
  rows: number;
  mergeSeconds: number;
  rebuildSeconds: number;
}

/**
 * `npm run bench -- rebuild-threshold` (issue 39, item 3): where a change batch rebuilding its table starts to cost less
 * than deleting and inserting each changed key. A pgbench_accounts-shaped table of BENCH_SCALE × 100,000 rows in a
 * PostgreSQL staging table; for each share of its rows, a batch updating them (keys spread over the table, rows in
 * random order, as a change read sends them) applied through the staging connector once merged and once rebuilt, each
 * into a fresh copy of the table after a CHECKPOINT; timed from the batch's first byte to its commit.
 */
export async function runRebuildThresholdBenchmark(settings: BenchSettings, log: (line: string) => void): Promise<void> {
  const startedAt = new Date();
  const database = await createTempDatabase('svc_bench_rebuild');
  const admin = new Pool({ connectionString: database.url, max: 2 });
  try {
    const machine = await machineInfo(admin, loadavg()[0] ?? 0);
    const rows = settings.scale * ROWS_PER_SCALE;
    log(`a base table of ${rows.toLocaleString('en-US')} rows`);
    await admin.query(`CREATE TABLE public.base (aid integer PRIMARY KEY, bid integer, abalance integer, filler character(84));
      INSERT INTO public.base SELECT g, g / 100000, 0, '' FROM generate_series(1, ${rows}) AS g`);
    await admin.query('VACUUM ANALYZE public.base');
    const source = createPostgresSource(database.url, { encrypt: false });
    const described = await source.describeTable({ schema: 'public', name: 'base' });
    await source.close();
    if (described === null) throw new Error('the base table is missing');
    const definition: TableDefinition = { ...described, table: { schema: 'public', name: 'accounts' } };
    const figures: Figure[] = [];
    for (const share of SHARES) {
      const timed = async (threshold: RebuildThreshold): Promise<number> => {
        await admin.query(`DROP TABLE IF EXISTS public.accounts`);
        const staging = createPostgresStaging(database.url, { encrypt: false, rebuild: threshold });
        try {
          await staging.ensureTable(definition);
          await admin.query('INSERT INTO public.accounts SELECT * FROM public.base');
          await admin.query('VACUUM ANALYZE public.accounts');
          await admin.query('CHECKPOINT');
          const started = process.hrtime.bigint();
          const batch = { batchId: `rebuild-bench/${share}/${threshold.share}`, replicationId: 'rebuild-bench', epoch: 1, definition, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } } as const;
          const outcome = await staging.applyBatch(batch, await changedRows(database.url, share));
          if (!outcome.applied) throw new Error(`the batch of ${share} was not applied`);
          return Number(process.hrtime.bigint() - started) / 1e9;
        } finally {
          await staging.close();
        }
      };
      const mergeSeconds = await timed(MERGE);
      const rebuildSeconds = await timed(REBUILD);
      const changed = Math.round(rows * share);
      log(`share ${share}: ${changed.toLocaleString('en-US')} rows, merged in ${mergeSeconds.toFixed(2)} s, rebuilt in ${rebuildSeconds.toFixed(2)} s`);
      figures.push({ share, rows: changed, mergeSeconds, rebuildSeconds });
    }
    machine.loadAverage.end = loadavg()[0] ?? 0;
    appendSection(settings.reportFile, renderRebuildThreshold(startedAt, rows, machine, figures));
    log(`appended to ${settings.reportFile}`);
  } finally {
    await admin.end();
    await database.drop();
  }
}

/** The change rows of a batch updating `share` of the base table's rows, spread by a hash of the key, in random order. */
async function changedRows(url: string, share: number): Promise<CsvChunks> {
  const client = new Client({ connectionString: url });
  await client.connect();
  const stream = client.query(
    copyTo(`COPY (SELECT 'U', aid, bid, abalance + 1, filler FROM public.base
WHERE (hashint4(aid)::bigint + 2147483648) % 1000 < ${Math.round(share * 1000)} ORDER BY random()) TO STDOUT (FORMAT csv)`),
  );
  return (async function* () {
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } finally {
      await client.end();
    }
  })();
}

function renderRebuildThreshold(startedAt: Date, rows: number, machine: MachineInfo, figures: Figure[]): string {
  const row = (figure: Figure) =>
    `| ${(figure.share * 100).toFixed(0)} % | ${figure.rows.toLocaleString('en-US')} | ${figure.mergeSeconds.toFixed(2)} s | ${figure.rebuildSeconds.toFixed(2)} s | ${(figure.mergeSeconds / figure.rebuildSeconds).toFixed(2)} |`;
  return [
    `## Rebuild or merge: one change batch into a ${rows.toLocaleString('en-US')}-row staging table, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM, ${machine.os}, Node.js ${machine.node}, ${machine.postgres}`,
    `- Load average (1 min): ${machine.loadAverage.start.toFixed(2)} at the start, ${machine.loadAverage.end.toFixed(2)} at the end`,
    '- Command: `npm run bench -- rebuild-threshold` (BENCH_SCALE × 100,000 rows shaped like pgbench_accounts). Each batch updates',
    "  the share of rows (keys spread over the table, rows in random order) through the PostgreSQL staging connector, into a fresh",
    '  copy of the table after a CHECKPOINT: merged (every key deleted, the rows inserted in key order) or rebuilt (kept rows',
    '  set aside, TRUNCATE, key dropped, rows inserted, key built again); timed from the first byte to the commit.',
    '',
    '| share of the rows | rows changed | merged | rebuilt | merged / rebuilt |',
    '|--:|--:|--:|--:|--:|',
    ...figures.map(row),
    '',
  ].join('\n');
}

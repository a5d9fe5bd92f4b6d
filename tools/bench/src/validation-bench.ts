import { loadavg } from 'node:os';
import { Pool } from 'pg';
import { DEFAULT_SCHEMAS } from '@svc/engine-list';
import { compareTable, type SourceConnector, type WarehouseConnector, type WarehouseTableOptions } from '@svc/engines';
import { createPostgresSource } from '@svc/postgres/source';
import { createPostgresWarehouse } from '@svc/postgres/warehouse';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { appendSection } from './bench-report';
import { machineInfo } from './machine-info';
import { libpqArguments, locatePostgresTools, runCommand } from './postgres-tools';
import { pipeCommands } from './raw-pipe';

export interface ValidationBenchSettings {
  /** pgbench scales: 20 is 2,000,000 accounts, 100 is 10,000,000. */
  scales: number[];
  /** Rows of the warehouse copy changed by hand before the second comparison (what finding and naming them costs). */
  corruptedRows: number;
  reportFile: string;
}

export function loadValidationBenchSettings(environment: Record<string, string | undefined>, reportFile: string): ValidationBenchSettings {
  const scales = (environment['BENCH_VALIDATION_SCALES'] ?? '20,100').split(',').map((scale) => Number(scale.trim()));
  if (scales.some((scale) => !Number.isInteger(scale) || scale < 1)) throw new Error('BENCH_VALIDATION_SCALES must be pgbench scales (whole numbers from 1), comma-separated');
  return { scales, corruptedRows: Number(environment['BENCH_VALIDATION_CORRUPTED'] ?? 1000), reportFile: environment['BENCH_REPORT_FILE'] ?? reportFile };
}

interface ScaleResult {
  scale: number;
  rows: number;
  /** `\copy (SELECT * …) to /dev/null` of the source table and of its warehouse copy, warm. */
  plainReadSeconds: { source: number; warehouse: number };
  /** compareTable on equal copies: one pass on each side. */
  equalSeconds: number;
  /** compareTable with corruptedRows rows of the warehouse changed, and what it named. */
  corrupted: { seconds: number; different: number };
}

const TABLE = { schema: 'public', name: 'pgbench_accounts' };
const OPTIONS: WarehouseTableOptions = { schema: 'bench', scdType: 'Type1', addUpdateTimestamp: false };
const COLUMNS = 'aid, bid, abalance, filler';

const seconds = (startedAt: number) => (performance.now() - startedAt) / 1000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const startedAt = performance.now();
  const value = await work();
  return { value, seconds: seconds(startedAt) };
}

/** One plain read of a relation to /dev/null through psql: what reading the table costs each side, as a floor. */
async function plainRead(psql: string, url: string, relation: string): Promise<number> {
  const { args, database, env } = libpqArguments(url);
  const run = () => runCommand(psql, [...args, '-d', database, '-X', '-q', '-c', `\\copy (SELECT * FROM ${relation}) to '/dev/null'`], env);
  await run();
  return (await timed(run)).seconds;
}

async function compare(source: SourceConnector, warehouse: WarehouseConnector): Promise<{ seconds: number; different: number; missing: number; extra: number }> {
  const definition = await source.describeTable(TABLE);
  if (!definition || !source.checksums) throw new Error('pgbench_accounts cannot be compared');
  const hooks = { watermark: async () => null, progress: async () => undefined, sleep: (ms: number) => new Promise<void>((done) => setTimeout(done, ms)), now: () => Date.now() };
  const { value, seconds: spent } = await timed(() => compareTable(source.checksums!(definition), warehouse.checksums(definition, OPTIONS), true, hooks));
  return { seconds: spent, different: value.different, missing: value.missing, extra: value.extra };
}

async function measureScale(scale: number, settings: ValidationBenchSettings, log: (line: string) => void): Promise<ScaleResult> {
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  let sourceDb: TempDatabase | undefined;
  let warehouseDb: TempDatabase | undefined;
  let source: SourceConnector | undefined;
  let warehouse: WarehouseConnector | undefined;
  try {
    sourceDb = await createTempDatabase('bench_validate_src');
    warehouseDb = await createTempDatabase('bench_validate_wh');
    const src = libpqArguments(sourceDb.url);
    const wh = libpqArguments(warehouseDb.url);
    log(`scale ${scale}: pgbench -i`);
    await runCommand(tools.pgbench, [...src.args, '-i', '-q', '-s', String(scale), src.database], src.env);
    source = createPostgresSource(sourceDb.url, { encrypt: false });
    const definition = await source.describeTable(TABLE);
    if (!definition) throw new Error('pgbench_accounts is missing');
    await source.enableTracking(definition);
    const url = new URL(warehouseDb.url);
    warehouse = createPostgresWarehouse(
      { url: `postgres://${url.hostname}:${url.port || '5432'}`, databaseName: warehouseDb.name, username: decodeURIComponent(url.username) || 'postgres', password: decodeURIComponent(url.password) },
      { statementTimeoutMs: 3_600_000, bareNameSchemas: DEFAULT_SCHEMAS },
    );
    await warehouse.ensureTable(definition, OPTIONS);
    log(`scale ${scale}: copying the table into the warehouse`);
    await pipeCommands(
      { file: tools.psql, args: [...src.args, '-d', src.database, '-X', '-q', '-c', `\\copy public.pgbench_accounts (${COLUMNS}) to stdout`], env: src.env },
      { file: tools.psql, args: [...wh.args, '-d', wh.database, '-X', '-q', '-c', `\\copy bench.pgbench_accounts (${COLUMNS}) from stdin`], env: wh.env },
    );
    for (const [database, relation] of [
      [sourceDb.url, 'public.pgbench_accounts'],
      [warehouseDb.url, 'bench.pgbench_accounts'],
    ] as const) {
      const pool = new Pool({ connectionString: database, max: 1 });
      await pool.query(`VACUUM ANALYZE ${relation}`).finally(() => pool.end());
    }
    const rows = scale * 100_000;
    log(`scale ${scale}: plain reads`);
    const plainReadSeconds = { source: await plainRead(tools.psql, sourceDb.url, 'public.pgbench_accounts'), warehouse: await plainRead(tools.psql, warehouseDb.url, 'bench.pgbench_accounts') };
    log(`scale ${scale}: comparing equal copies`);
    const equal = await compare(source, warehouse);
    if (equal.different + equal.missing + equal.extra > 0) throw new Error(`equal copies compared as different: ${JSON.stringify(equal)}`);
    const pool = new Pool({ connectionString: warehouseDb.url, max: 1 });
    const step = Math.max(1, Math.floor(rows / settings.corruptedRows));
    await pool.query(`UPDATE bench.pgbench_accounts SET abalance = abalance + 1 WHERE aid % ${step} = 0`).finally(() => pool.end());
    log(`scale ${scale}: comparing with ${settings.corruptedRows} rows changed`);
    const corrupted = await compare(source, warehouse);
    return { scale, rows, plainReadSeconds, equalSeconds: equal.seconds, corrupted: { seconds: corrupted.seconds, different: corrupted.different } };
  } finally {
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await Promise.allSettled([sourceDb?.drop(), warehouseDb?.drop()]);
  }
}

function render(results: readonly ScaleResult[], startedAt: Date, machine: Awaited<ReturnType<typeof machineInfo>>, settings: ValidationBenchSettings): string {
  const lines = [
    `## Validation of pgbench_accounts against a plain read — ${startedAt.toISOString()}`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${machine.os}, Node ${machine.node}, PostgreSQL ${machine.postgres}; load ${machine.loadAverage.start.toFixed(2)} → ${machine.loadAverage.end.toFixed(2)}.`,
    'Source and warehouse are two databases of the same PostgreSQL server (PostgreSQL → PostgreSQL, Type1), filled by `pgbench -i` and one COPY, vacuumed; the comparison is `compareTable` as the extractor runs it (both sides at once on this 2-core machine), the plain read a warm `\\copy (SELECT * …) to /dev/null` of each side.',
    '',
    `| rows | plain read, source | plain read, warehouse | validation, equal copies | ratio to the two reads | validation, ${settings.corruptedRows} rows changed | keys named |`,
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((result) => {
      const reads = result.plainReadSeconds.source + result.plainReadSeconds.warehouse;
      return `| ${result.rows.toLocaleString('en-US')} | ${result.plainReadSeconds.source.toFixed(2)} s | ${result.plainReadSeconds.warehouse.toFixed(2)} s | ${result.equalSeconds.toFixed(2)} s | ${(result.equalSeconds / reads).toFixed(2)}× | ${result.corrupted.seconds.toFixed(2)} s | ${result.corrupted.different} |`;
    }),
    '',
  ];
  return lines.join('\n');
}

/** `npm run bench -- validation`: a 2M- and a 10M-row table validated, against a plain read of each side. */
export async function runValidationBenchmark(settings: ValidationBenchSettings, log: (line: string) => void): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const results: ScaleResult[] = [];
  for (const scale of settings.scales) results.push(await measureScale(scale, settings, log));
  const admin = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 1 });
  const machine = await machineInfo(admin, loadAtStart).finally(() => admin.end());
  const section = render(results, startedAt, machine, settings);
  process.stdout.write(`\n${section}\n`);
  appendSection(settings.reportFile, section);
  log(`appended to ${settings.reportFile}`);
}

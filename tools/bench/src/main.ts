import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Client, Pool } from 'pg';
import { ConfigError } from '@svc/config';
import { ServiceProcess, TestStack } from '@svc/system-testing';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { appendSection, renderSection, type BenchResult, type RawPipeFigure } from './bench-report';
import { BENCH_PARALLEL_TABLES, BENCH_WAREHOUSE_SCHEMA, PGBENCH_TABLES, benchStackEnv, loadBenchSettings, type BenchSettings } from './bench-settings';
import { measuredPids } from './measured-pids';
import { runGatewayLoadBenchmark } from './gateway-load-bench';
import { loadGatewayLoadSettings } from './gateway-load-settings';
import { loadManyTablesSettings, runManyTablesBenchmark } from './many-tables-bench';
import { loadValidationBenchSettings, runValidationBenchmark } from './validation-bench';
import { runCatchUpBenchmark } from './catch-up-bench';
import { runCaptureOverheadBenchmark } from './capture-overhead-bench';
import { runRebuildThresholdBenchmark } from './rebuild-threshold-bench';
import { runSeedKillBenchmark } from './seed-kill-bench';
import { loadMysqlBenchSettings, runMysqlBenchmark } from './mysql-bench';
import { waitUntilConsistent } from './consistency';
import { cpuSnapshot, cpuSpent } from './cpu-usage';
import { PROBE_TABLE_SQL, ProbeWatcher, ProbeWriter, parsePgbenchReport } from './lag-measurement';
import { latencyStats } from './latency-stats';
import { machineInfo } from './machine-info';
import { peakRssBytes } from './peak-memory';
import { libpqArguments, locatePostgresTools, runCommand, type PostgresTool } from './postgres-tools';
import { copySchema, copyTable, copyTableTwice } from './raw-pipe';
import { measureSeed } from './seed-measurement';
import { logSlowStatements, statementLogThresholdMs } from './statement-log';

/** The build's root (dist/): this file is dist/tools/bench/src/main.js. */
const buildRoot = resolve(__dirname, '..', '..', '..');
const repoRoot = resolve(buildRoot, '..');
const SERVICE_LOG_FILE = join(repoRoot, 'tmp', 'bench-services.log');
const PROBES_DRAIN_MS = 120_000;
const CATCH_UP_DEADLINE_MS = 300_000;

const started = performance.now();
function log(line: string): void {
  process.stdout.write(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const begin = performance.now();
  await work();
  return (performance.now() - begin) / 1000;
}

/**
 * Times `copy` of each pgbench table (after a CHECKPOINT, so no copy pays for the last one's dirty pages); `how` names
 * the copy in the progress log. MB are the source tables' pg_table_size.
 */
async function timeTableCopies(source: Pool, how: string, copy: (table: string) => Promise<number>): Promise<RawPipeFigure[]> {
  const figures: RawPipeFigure[] = [];
  for (const table of PGBENCH_TABLES) {
    await source.query('CHECKPOINT');
    let rows = 0;
    const seconds = await timed(async () => {
      rows = await copy(`public.${table}`);
    });
    const { rows: size } = await source.query<{ bytes: string }>(`SELECT pg_table_size('public.${table}') AS bytes`);
    figures.push({ table, rows, bytes: Number(size[0]?.bytes ?? 0), seconds });
    log(`  ${table}: ${rows} rows ${how} in ${seconds.toFixed(2)} s`);
  }
  return figures;
}

async function rawPipeBaseline(tools: Record<PostgresTool, string>, source: Pool, sourceUrl: string, scratch: TempDatabase): Promise<RawPipeFigure[]> {
  await copySchema(tools, sourceUrl, scratch.url, PGBENCH_TABLES.map((table) => `public.${table}`));
  return timeTableCopies(source, 'copied', (table) => copyTable(tools.psql, sourceUrl, scratch.url, table));
}

/** The design's floor: each table read once and written into two scratch databases at once (tee). */
async function twoWriteFloor(tools: Record<PostgresTool, string>, source: Pool, sourceUrl: string, scratches: [TempDatabase, TempDatabase]): Promise<RawPipeFigure[]> {
  await Promise.all(scratches.map((scratch) => copySchema(tools, sourceUrl, scratch.url, PGBENCH_TABLES.map((table) => `public.${table}`))));
  return timeTableCopies(source, 'into two databases', async (table) => (await copyTableTwice(tools.psql, sourceUrl, [scratches[0].url, scratches[1].url], table))[0]);
}

async function measureLag(stack: TestStack, tools: Record<PostgresTool, string>, settings: BenchSettings, source: Pool, warehouse: Pool): Promise<BenchResult['lag']> {
  const writerClient = new Client({ connectionString: stack.source.url });
  const watcherClient = new Client({ connectionString: stack.warehouse.url });
  await Promise.all([writerClient.connect(), watcherClient.connect()]);
  try {
    const writer = new ProbeWriter(writerClient);
    const watcher = new ProbeWatcher(watcherClient);
    const connection = libpqArguments(stack.source.url);
    watcher.start();
    const pgbench = runCommand(
      tools.pgbench,
      ['-c', String(settings.clients), '-T', String(settings.durationSeconds), ...connection.args, connection.database],
      connection.env,
    );
    writer.start();
    const report = await pgbench.finally(() => writer.stop());
    const ended = performance.now();
    log(`pgbench ended; waiting for the last probes and for the warehouse to catch up`);
    await watcher.drain(writer.written, PROBES_DRAIN_MS);
    const consistent = await waitUntilConsistent(source, warehouse, BENCH_WAREHOUSE_SCHEMA, CATCH_UP_DEADLINE_MS);
    const lags = writer.written.map((id) => watcher.lagById.get(id)).filter((lag): lag is number => lag !== undefined);
    return {
      stats: latencyStats(lags),
      probesWritten: writer.written.length,
      probeFailures: writer.failures.length + watcher.failures.length,
      pgbench: parsePgbenchReport(report.stdout),
      caughtUpSeconds: consistent ? (performance.now() - ended) / 1000 : null,
    };
  } finally {
    await Promise.allSettled([writerClient.end(), watcherClient.end()]);
  }
}

/** Every service's log, the extra stagers' and loaders' (BENCH_STAGERS, BENCH_LOADERS) included. */
function saveServiceLogs(stack: TestStack, extraWorkers: ReadonlyMap<string, ServiceProcess>): void {
  mkdirSync(dirname(SERVICE_LOG_FILE), { recursive: true });
  writeFileSync(SERVICE_LOG_FILE, [stack.logs(), ...[...extraWorkers.values()].map((child) => child.logs())].join(''));
}

/** BENCH_STAGERS / BENCH_LOADERS beyond the stack's one of each: more processes of the same service on the same bus. */
async function startExtraWorkers(stack: TestStack, settings: BenchSettings, started: Map<string, ServiceProcess>): Promise<void> {
  for (const [service, count] of [['stager', settings.stagers], ['loader', settings.loaders]] as const) {
    for (let index = 2; index <= count; index++) {
      const child = new ServiceProcess(service, stack.envOf(service));
      child.start();
      started.set(`${service}-${index}`, child);
    }
  }
  // A worker is ready within a few seconds of starting (the stack's own are waited for); the first seed part comes later.
  if (started.size > 0) await new Promise((done) => setTimeout(done, 5000));
}

async function run(settings: BenchSettings): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  const stackEnv = benchStackEnv(process.env);
  const stack = new TestStack({ workers: ['extractor', 'stager', 'loader'], env: stackEnv });
  const extraWorkers = new Map<string, ServiceProcess>();
  let scratch: TempDatabase | undefined;
  let floorScratches: [TempDatabase, TempDatabase] | undefined;
  let source: Pool | undefined;
  let warehouse: Pool | undefined;
  // Ctrl-C or a kill: stop the services and the nats-server and remove the temporary databases.
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the services and removing the temporary databases`);
    void Promise.allSettled([scratch?.drop(), ...(floorScratches ?? []).map((database) => database.drop()), ...[...extraWorkers.values()].map((child) => child.stop()), stack.stop()]).then(() => {
      saveServiceLogs(stack, extraWorkers);
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    log('starting the services, a private nats-server, an S3 server and temporary databases');
    await stack.start();
    await startExtraWorkers(stack, settings, extraWorkers);
    source = new Pool({ connectionString: stack.source.url, max: 4 });
    warehouse = new Pool({ connectionString: stack.warehouse.url, max: 4 });
    const statementLogMs = statementLogThresholdMs(process.env);
    if (statementLogMs !== null) await logSlowStatements(source, [stack.source.name, stack.staging.name, stack.warehouse.name], statementLogMs);
    const startedAt = new Date();

    log(`pgbench -i -s ${settings.scale} into ${stack.source.name}`);
    const connection = libpqArguments(stack.source.url);
    const initSeconds = await timed(() => runCommand(tools.pgbench, ['-i', '-q', '-s', String(settings.scale), ...connection.args, connection.database], connection.env));
    await source.query(PROBE_TABLE_SQL);

    log('raw pipe baseline: psql \\copy | psql \\copy into a scratch database');
    scratch = await createTempDatabase('svc_bench_scratch');
    const rawPipe = await rawPipeBaseline(tools, source, stack.source.url, scratch);
    await scratch.drop();
    scratch = undefined;

    log('two-write floor: psql \\copy | tee into two scratch databases');
    floorScratches = [await createTempDatabase('svc_bench_floor_a'), await createTempDatabase('svc_bench_floor_b')];
    const floor = await twoWriteFloor(tools, source, stack.source.url, floorScratches);
    await Promise.all(floorScratches.map((database) => database.drop()));
    floorScratches = undefined;

    log('seeding through the pipeline');
    await source.query('CHECKPOINT');
    const pids = measuredPids(stack, extraWorkers);
    const beforeSeed = cpuSnapshot(pids);
    const seed = await measureSeed(stack, source, warehouse, [...PGBENCH_TABLES, 'bench_probe']);
    const seedCpu = cpuSpent(beforeSeed, cpuSnapshot(pids));
    log(`  seeded ${seed.rows} rows in ${seed.seconds.toFixed(2)} s`);

    log(`lag: pgbench -c ${settings.clients} -T ${settings.durationSeconds} with a probe row every 200 ms`);
    const beforeLag = cpuSnapshot(pids);
    const lag = await measureLag(stack, tools, settings, source, warehouse);
    const lagCpu = cpuSpent(beforeLag, cpuSnapshot(pids));

    const peakRss = Object.entries(pids).map(([service, pid]) => ({ service, bytes: peakRssBytes(pid) }));
    const warnings = [stack.logs(), ...[...extraWorkers.values()].map((child) => child.logs())].join('').split('\n').filter((line) => /"level":"(warn|error)"/.test(line)).length;
    const result: BenchResult = {
      startedAt,
      machine: await machineInfo(source, loadAtStart),
      settings,
      stackEnv,
      parallelTables: BENCH_PARALLEL_TABLES,
      initSeconds,
      rawPipe,
      floor,
      seed,
      lag,
      peakRss,
      cpu: { seed: seedCpu, lag: lagCpu },
      warnings,
      logFile: relative(repoRoot, SERVICE_LOG_FILE),
    };
    const section = renderSection(result);
    process.stdout.write(`\n${section}\n`);
    appendSection(settings.reportFile, section);
    log(`appended to ${settings.reportFile}`);
  } catch (error) {
    const recent = stack
      .logs()
      .split('\n')
      .filter((line) => /"level":"(warn|error)"/.test(line))
      .slice(-20);
    if (recent.length) process.stderr.write(`last warnings of the services:\n${recent.join('\n')}\n`);
    throw error;
  } finally {
    await Promise.allSettled([source?.end(), warehouse?.end(), scratch?.drop(), ...(floorScratches ?? []).map((database) => database.drop())]);
    await Promise.allSettled([...extraWorkers.values()].map((child) => child.stop()));
    await stack.stop();
    saveServiceLogs(stack, extraWorkers);
  }
}

/**
 * `npm run bench` measures the pipeline; `npm run bench -- gateway-load` the gateway's responsiveness under hostile bodies;
 * `npm run bench -- many-tables` the lag of one change among many idle tables; `npm run bench -- catch-up` a backlog's
 * catch-up against PostgreSQL's native logical replication; `npm run bench -- validation` a table's validation against a plain read;
 * `npm run bench -- capture-overhead` what capturing changes (from the log, by triggers) costs the source's writes;
 * `npm run bench -- seed-kill` a chunked seed under writes, uninterrupted, with the workers killed at half, and with NATS restarted at half;
 * `npm run bench -- rebuild-threshold` one change batch merged against the same batch rebuilding its table, by share of the rows;
 * `npm run bench -- mysql` a MariaDB source's seed against a raw pipe, and its change apply rate.
 */
function main(command: string | undefined): Promise<void> {
  const reportFile = join(repoRoot, 'BENCHMARKS.md');
  switch (command) {
    case undefined:
    case 'pipeline':
      return run(loadBenchSettings(process.env, reportFile));
    case 'gateway-load':
      return runGatewayLoadBenchmark(loadGatewayLoadSettings(process.env, reportFile), repoRoot, log);
    case 'catch-up':
      return runCatchUpBenchmark(loadBenchSettings(process.env, reportFile), join(repoRoot, 'tmp', 'bench-catch-up-services.log'), log);
    case 'many-tables':
      return runManyTablesBenchmark(loadManyTablesSettings(process.env, reportFile), join(repoRoot, 'tmp', 'bench-many-tables-services.log'), log);
    case 'capture-overhead':
      return runCaptureOverheadBenchmark(loadBenchSettings(process.env, reportFile), log);
    case 'validation':
      return runValidationBenchmark(loadValidationBenchSettings(process.env, reportFile), log);
    case 'seed-kill':
      return runSeedKillBenchmark(loadBenchSettings(process.env, reportFile), join(repoRoot, 'tmp', 'bench-seed-kill-services.log'), log);
    case 'rebuild-threshold':
      return runRebuildThresholdBenchmark(loadBenchSettings(process.env, reportFile), log);
    case 'mysql':
      return runMysqlBenchmark(loadMysqlBenchSettings(process.env, reportFile), join(repoRoot, 'tmp', 'bench-mysql-services.log'), log);
    default:
      return Promise.reject(new ConfigError([`unknown benchmark '${command}'; choose pipeline (the default), capture-overhead, catch-up, gateway-load, many-tables, mysql, rebuild-threshold, seed-kill or validation`]));
  }
}

main(process.argv[2]).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);

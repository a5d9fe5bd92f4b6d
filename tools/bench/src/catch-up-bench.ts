import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Pool } from 'pg';
import { holdLogRelay, releaseLogRelay } from '@svc/postgres/source';
import { TestStack } from '@svc/system-testing';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { call } from './bench-api';
import { cleanUpOnInterrupt } from './interrupt';
import { appendSection, cpuLine } from './bench-report';
import { BENCH_WAREHOUSE_SCHEMA, PGBENCH_TABLES, benchStackEnv, type BenchSettings } from './bench-settings';
import { measuredPids } from './measured-pids';
import { fingerprints } from './consistency';
import { cpuSnapshot, cpuSpent, type CpuSpent } from './cpu-usage';
import { parsePgbenchReport } from './lag-measurement';
import { peakRssBytes } from './peak-memory';
import { RssPhases, describePhasePeaks, mebibytes, type PhasePeak } from './rss-phases';
import { machineInfo } from './machine-info';
import { libpqArguments, locatePostgresTools, locateServerPrograms, runCommand } from './postgres-tools';
import { PrivateCluster } from './private-cluster';
import { logSlowStatements, statementLogThresholdMs } from './statement-log';
import { copySchema } from './raw-pipe';
import { measureSeed } from './seed-measurement';

const SOURCE_DATABASE = 'bench_src';
const PUBLICATION = 'svc_bench_pub';
const SUBSCRIPTION = 'svc_bench_sub';
const DEADLINE_MS = 30 * 60_000;
const POLL_MS = 50;
/** Settings of the private source cluster: logical decoding for the native subscription, the rest PostgreSQL's defaults. */
const CLUSTER_SETTINGS = { wal_level: 'logical', max_wal_senders: '10', max_replication_slots: '10' };

export interface CatchUpResult {
  startedAt: Date;
  settings: BenchSettings;
  stackEnv: Record<string, string>;
  machine: Awaited<ReturnType<typeof machineInfo>>;
  pgbench: { tps: number; transactions: number };
  /** Change records the source's change tables gained during the backlog (one per row and statement). */
  trackedChanges: number;
  native: { seconds: number; cpu: CpuSpent };
  pipeline: { seconds: number; cpu: CpuSpent };
  /** The pipeline's seed of the same tables, earlier in the run (Create → all Tracking and counts equal). */
  seedSeconds: number;
  /** One transaction updating every pgbench_accounts row, applied by each alone (goal 2: ≤ 1.5× the seed). */
  bigTransaction: { rows: number; native: { seconds: number; cpu: CpuSpent }; pipeline: { seconds: number; cpu: CpuSpent } };
  /** A second backlog built with the relay of the log held too (as with every extractor stopped), caught up as the first. */
  heldBacklog: { pgbench: { tps: number; transactions: number }; native: { seconds: number; cpu: CpuSpent }; pipeline: { seconds: number; cpu: CpuSpent } };
  /** VmHWM of each service and the private nats-server at the end of the run. */
  peakRss: { service: string; bytes: number | null }[];
  /** Each process's highest RSS sampled every 250 ms from the seed on, with the phase it was seen in. */
  phasePeaks: PhasePeak[];
  warnings: number;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The small tables, checked first: every pgbench transaction writes each of them, so they settle last or near it. */
const CHEAP_TABLES = ['pgbench_branches', 'pgbench_tellers', 'pgbench_history'];
const FULL_CHECK_PAUSE_MS = 250;

/**
 * Seconds until `target`'s pgbench fingerprints (counts, balance sums, history) equal the quiet source's, as of the
 * start of the check that found them equal. pgbench_accounts' fingerprint reads 2M rows (a third of a second of a
 * CPU here), so it is asked only once the small tables agree, and not more than every FULL_CHECK_PAUSE_MS: polling
 * it back to back would take one of the machine's CPUs from the replication being measured.
 */
async function secondsUntilEqual(source: Pool, target: Pool, schema: string): Promise<number> {
  const started = performance.now();
  const expectedCheap = JSON.stringify(await fingerprints(source, 'public', CHEAP_TABLES));
  const expectedFull = JSON.stringify(await fingerprints(source, 'public', PGBENCH_TABLES));
  for (;;) {
    const checkStarted = performance.now();
    if (JSON.stringify(await fingerprints(target, schema, CHEAP_TABLES)) === expectedCheap) {
      if (JSON.stringify(await fingerprints(target, schema, PGBENCH_TABLES)) === expectedFull) return (checkStarted - started) / 1000;
      await sleep(FULL_CHECK_PAUSE_MS);
    }
    if (performance.now() - started > DEADLINE_MS) throw new Error(`${schema} did not catch up within ${DEADLINE_MS / 60_000} minutes`);
    await sleep(POLL_MS);
  }
}

async function trackedChangeCount(source: Pool): Promise<number> {
  const { rows } = await source.query<{ relation: string }>(`SELECT format('%I.%I', n.nspname, c.relname) AS relation
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'svc_ct' AND c.relkind = 'r'`);
  let total = 0;
  for (const { relation } of rows) total += Number((await source.query<{ n: string }>(`SELECT count(*) AS n FROM ${relation}`)).rows[0]?.n ?? 0);
  return total;
}

/** PostgreSQL's own logical replication of the pgbench tables into `subscriber`: publication, subscription, initial copy. */
async function subscribe(cluster: PrivateCluster, source: Pool, subscriber: TempDatabase, subscriberPool: Pool, tools: ReturnType<typeof locatePostgresTools>): Promise<void> {
  await copySchema(tools, cluster.url(SOURCE_DATABASE), subscriber.url, PGBENCH_TABLES.map((table) => `public.${table}`));
  await source.query(`CREATE PUBLICATION ${PUBLICATION} FOR TABLE ${PGBENCH_TABLES.map((table) => `public.${table}`).join(', ')}`);
  await subscriberPool.query(`CREATE SUBSCRIPTION ${SUBSCRIPTION} CONNECTION '${cluster.conninfo(SOURCE_DATABASE)}' PUBLICATION ${PUBLICATION}`);
  await secondsUntilEqual(source, subscriberPool, 'public');
}

async function unsubscribe(subscriberUrl: string): Promise<void> {
  const client = new Client({ connectionString: subscriberUrl });
  await client.connect();
  try {
    // Detached from its slot first: the slot goes with the private cluster, which may already be gone.
    const { rowCount } = await client.query('SELECT 1 FROM pg_subscription WHERE subname = $1 AND subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())', [SUBSCRIPTION]);
    if (!rowCount) return;
    await client.query(`ALTER SUBSCRIPTION ${SUBSCRIPTION} DISABLE`);
    await client.query(`ALTER SUBSCRIPTION ${SUBSCRIPTION} SET (slot_name = NONE)`);
    await client.query(`DROP SUBSCRIPTION ${SUBSCRIPTION}`);
  } finally {
    await client.end();
  }
}

function renderSection(result: CatchUpResult): string {
  const { settings, machine, native, pipeline } = result;
  const ratio = native.seconds / pipeline.seconds;
  return [
    `## Catch-up: scale ${settings.scale}, ${settings.durationSeconds} s of pgbench -c ${settings.clients}, ${result.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpuModel}, ${(machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${machine.os}, Node ${machine.node}, PostgreSQL ${machine.postgres}; load ${machine.loadAverage.start.toFixed(2)} → ${machine.loadAverage.end.toFixed(2)}.`,
    `Command: \`BENCH_SCALE=${settings.scale} BENCH_DURATION_S=${settings.durationSeconds} BENCH_CLIENTS=${settings.clients}${settings.batchLimit === null ? '' : ` BENCH_BATCH_LIMIT=${settings.batchLimit}`} npm run bench -- catch-up\`. The source is a private cluster`,
    `(initdb, wal_level=logical); the native subscriber and the pipeline's staging and warehouse are databases of the server on 5432.`,
    `Services: ${Object.entries(result.stackEnv).map(([name, value]) => `${name}=${value}`).join(', ')}.`,
    '',
    `Backlog: pgbench ${result.pgbench.transactions.toLocaleString('en-US')} transactions (${result.pgbench.tps.toFixed(0)} tps) while both were paused`,
    `(the subscription disabled; StopReplicationService, while the extractor's relay of the log went on),`,
    `${result.trackedChanges.toLocaleString('en-US')} tracked row changes written meanwhile. Each then caught up alone (native first), timed until the`,
    'pgbench tables\' counts and balance sums (pgbench_history: count and sum of delta, with a surrogate key `hid` added so both track it) equalled the source\'s.',
    '',
    '| Replication | caught up in | native s / this s |',
    '| --- | --: | --: |',
    `| PostgreSQL logical replication (publication + subscription, re-enabled) | ${native.seconds.toFixed(2)} s | 1.00 |`,
    `| this pipeline (StartReplication) | ${pipeline.seconds.toFixed(2)} s | ${ratio.toFixed(2)} (target ≥ 2: ${ratio >= 2 ? 'met' : '**missed**'}) |`,
    '',
    `CPU seconds, native catch-up: ${cpuLine(native.cpu, machine.cpus)}.`,
    '',
    `CPU seconds, pipeline catch-up: ${cpuLine(pipeline.cpu, machine.cpus)}.`,
    '',
    ...heldBacklogLines(result),
    ...bigTransactionLines(result),
    `Peak RSS (VmHWM): ${result.peakRss.map((entry) => `${entry.service} ${entry.bytes === null ? 'n/a' : mebibytes(entry.bytes)}`).join(', ')}.`,
    '',
    `Highest RSS sampled (every 250 ms from the seed on), with the phase it was seen in: ${describePhasePeaks(result.phasePeaks)}.`,
    '',
    `Warn/error lines logged by the services: ${result.warnings}.`,
    '',
  ].join('\n');
}

function heldBacklogLines(result: CatchUpResult): string[] {
  const { heldBacklog, machine } = result;
  const ratio = heldBacklog.native.seconds / heldBacklog.pipeline.seconds;
  return [
    `**A second backlog with the relay of the log held too** (holdLogRelay, as with every extractor stopped: the changes wait in the WAL for`,
    `both): pgbench ${heldBacklog.pgbench.transactions.toLocaleString('en-US')} transactions (${heldBacklog.pgbench.tps.toFixed(0)} tps); the relay released with StartReplication.`,
    '',
    '| Replication | caught up in | native s / this s |',
    '| --- | --: | --: |',
    `| PostgreSQL logical replication | ${heldBacklog.native.seconds.toFixed(2)} s | 1.00 |`,
    `| this pipeline, relaying the backlog first | ${heldBacklog.pipeline.seconds.toFixed(2)} s | ${ratio.toFixed(2)} |`,
    '',
    `CPU seconds, native catch-up: ${cpuLine(heldBacklog.native.cpu, machine.cpus)}.`,
    '',
    `CPU seconds, pipeline catch-up: ${cpuLine(heldBacklog.pipeline.cpu, machine.cpus)}.`,
    '',
  ];
}

function bigTransactionLines(result: CatchUpResult): string[] {
  const { bigTransaction, seedSeconds, machine } = result;
  const toSeed = bigTransaction.pipeline.seconds / seedSeconds;
  return [
    `**One transaction updating all ${bigTransaction.rows.toLocaleString('en-US')} accounts** (\`UPDATE pgbench_accounts SET abalance = abalance + 1\`), both paused and the relay held`,
    'while it ran, then each applied it alone, timed as above; against the pipeline\'s seed of the same tables in this run:',
    '',
    '| Replication | applied in | this s / the seed s |',
    '| --- | --: | --: |',
    `| PostgreSQL logical replication | ${bigTransaction.native.seconds.toFixed(2)} s | – |`,
    `| this pipeline | ${bigTransaction.pipeline.seconds.toFixed(2)} s | ${toSeed.toFixed(2)} (target ≤ 1.5: ${toSeed <= 1.5 ? 'met' : '**missed**'}) |`,
    `| this pipeline's seed | ${seedSeconds.toFixed(2)} s | 1.00 |`,
    '',
    `CPU seconds, native apply: ${cpuLine(bigTransaction.native.cpu, machine.cpus)}.`,
    '',
    `CPU seconds, pipeline apply: ${cpuLine(bigTransaction.pipeline.cpu, machine.cpus)}.`,
    '',
  ];
}

/** Seconds `resume` takes until `target` equals the source, with the CPU each process spent meanwhile. */
async function timedApply(source: Pool, target: Pool, schema: string, pids: Record<string, number | undefined>, resume: () => Promise<unknown>): Promise<{ seconds: number; cpu: CpuSpent }> {
  const before = cpuSnapshot(pids);
  await resume();
  const seconds = await secondsUntilEqual(source, target, schema);
  return { seconds, cpu: cpuSpent(before, cpuSnapshot(pids)) };
}

/**
 * `npm run bench -- catch-up` (issue 23, goals 2 and 4): one backlog, applied by PostgreSQL's native logical
 * replication and by this pipeline, each alone, measured in the same run.
 */
export async function runCatchUpBenchmark(settings: BenchSettings, logFile: string, log: (line: string) => void): Promise<void> {
  // BENCH_STATEMENT_LOG_MS: statements that took at least this long are logged — the source's into
  // $TMPDIR/svc-bench-source-postgres/ (the server's user may not reach the checkout), staging's and the warehouse's into the server's own log (per-database settings).
  const statementLogMs = statementLogThresholdMs(process.env);
  const sourceLogFolder = join(tmpdir(), 'svc-bench-source-postgres');
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  const programs = locateServerPrograms({ path: process.env['PATH'] });
  const stackEnv = benchStackEnv(process.env);
  const stack = new TestStack({ workers: ['extractor', 'stager', 'loader'], env: stackEnv });
  let cluster: PrivateCluster | undefined;
  let subscriber: TempDatabase | undefined;
  const pools: Array<{ end: () => Promise<void> }> = [];
  const cleanUp = async () => {
    await Promise.allSettled(pools.map((pool) => pool.end()));
    if (subscriber) {
      await unsubscribe(subscriber.url).catch((error: unknown) => log(`could not drop the subscription: ${String(error)}`));
      await subscriber.drop().catch(() => undefined);
    }
    await stack.stop();
    await cluster?.stop();
    mkdirSync(dirname(logFile), { recursive: true });
    writeFileSync(logFile, stack.logs());
  };
  const stopWatchingSignals = cleanUpOnInterrupt(cleanUp, log);
  try {
    log('starting a private PostgreSQL cluster (wal_level=logical) for the source');
    const statementLogging: Record<string, string> = statementLogMs !== null
      ? { log_min_duration_statement: String(statementLogMs), logging_collector: 'on', log_directory: sourceLogFolder, log_filename: 'postgresql.log', log_file_mode: '0644' }
      : {};
    if (statementLogMs !== null) {
      mkdirSync(sourceLogFolder, { recursive: true });
      chmodSync(sourceLogFolder, 0o777);
    }
    cluster = await PrivateCluster.start(programs, { ...CLUSTER_SETTINGS, ...statementLogging });
    await cluster.createDatabase(SOURCE_DATABASE);
    const connection = libpqArguments(cluster.url(SOURCE_DATABASE));
    log(`pgbench -i -s ${settings.scale} into it`);
    await runCommand(tools.pgbench, ['-i', '-q', '-s', String(settings.scale), ...connection.args, connection.database], connection.env);
    const source = new Pool({ connectionString: cluster.url(SOURCE_DATABASE), max: 4 });
    pools.push(source);
    // pgbench_history has no key, so the pipeline would not track it (a keyless table is reseeded on a schedule):
    // a surrogate key lets both replicate its inserts. pgbench names the columns it inserts.
    await source.query('ALTER TABLE public.pgbench_history ADD COLUMN hid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY');

    log('native: publication, subscription and its initial copy');
    subscriber = await createTempDatabase('svc_bench_native');
    const subscriberPool = new Pool({ connectionString: subscriber.url, max: 2 });
    pools.push(subscriberPool);
    await subscribe(cluster, source, subscriber, subscriberPool, tools);

    log('pipeline: starting the services and seeding');
    await stack.start();
    if (statementLogMs !== null) await logSlowStatements(subscriberPool, [stack.staging.name, stack.warehouse.name], statementLogMs);
    const startedAt = new Date();
    const warehouse = new Pool({ connectionString: stack.warehouse.url, max: 2 });
    pools.push(warehouse);
    const rss = new RssPhases(measuredPids(stack));
    rss.start();
    rss.phase('the seed');
    const seed = await measureSeed(stack, source, warehouse, PGBENCH_TABLES, { sourceUrl: cluster.url(SOURCE_DATABASE) });
    log(`  seeded in ${seed.seconds.toFixed(1)} s`);
    if (settings.batchLimit !== null) {
      log(`ChangeTrackingBatchLimit ${settings.batchLimit}`);
      await call(stack, 'AlterWarehouseReplication', { replicationId: seed.replicationId, changeTrackingBatchLimit: String(settings.batchLimit) });
    }

    // The extractors' relay of the log goes on while the service is stopped; held, the backlog waits in the WAL for both.
    const relayHolder = new Client({ connectionString: cluster.url(SOURCE_DATABASE) });
    await relayHolder.connect();
    pools.push({ end: () => relayHolder.end() });
    let relayHeld = false;
    const pauseBoth = async (holdRelay: boolean) => {
      await subscriberPool.query(`ALTER SUBSCRIPTION ${SUBSCRIPTION} DISABLE`);
      await call(stack, 'StopReplicationService', {});
      // Work handed out before the stop finishes; the source is quiet, so there is none left after a moment.
      await sleep(2000);
      if (holdRelay) await holdLogRelay(relayHolder);
      relayHeld = holdRelay;
    };
    log('pausing both: ALTER SUBSCRIPTION … DISABLE, StopReplicationService (the extractor still relays the log)');
    await pauseBoth(false);
    rss.phase('the backlog built, the relay of the log running');
    const changesBefore = await trackedChangeCount(source);
    log(`pgbench -c ${settings.clients} -T ${settings.durationSeconds} builds the backlog`);
    const report = await runCommand(tools.pgbench, ['-c', String(settings.clients), '-T', String(settings.durationSeconds), ...connection.args, connection.database], connection.env);
    const pgbench = parsePgbenchReport(report.stdout);
    const trackedChanges = (await trackedChangeCount(source)) - changesBefore;
    await source.query('CHECKPOINT');

    const pids = measuredPids(stack);

    /** Native first, then the pipeline, each alone: the subscription is disabled again before the pipeline resumes. */
    const eachAlone = async (what: string) => {
      log(`${what}, native: ALTER SUBSCRIPTION … ENABLE`);
      rss.phase(`${what}, native`);
      const nativeApply = await timedApply(source, subscriberPool, 'public', pids, () => subscriberPool.query(`ALTER SUBSCRIPTION ${SUBSCRIPTION} ENABLE`));
      log(`  ${nativeApply.seconds.toFixed(2)} s`);
      await subscriberPool.query(`ALTER SUBSCRIPTION ${SUBSCRIPTION} DISABLE`);
      await sleep(1000);
      log(`${what}, pipeline: StartReplication${relayHeld ? ', the relay released' : ''}`);
      rss.phase(`${what}, pipeline`);
      const pipelineApply = await timedApply(source, warehouse, BENCH_WAREHOUSE_SCHEMA, pids, async () => {
        if (relayHeld) await releaseLogRelay(relayHolder);
        await call(stack, 'StartReplication', {});
      });
      log(`  ${pipelineApply.seconds.toFixed(2)} s`);
      return { native: nativeApply, pipeline: pipelineApply };
    };
    const { native, pipeline } = await eachAlone('catch-up');

    log('pausing both, the relay of the log held too (as with every extractor stopped)');
    await pauseBoth(true);
    rss.phase('the second backlog built, the relay held');
    log(`pgbench -c ${settings.clients} -T ${settings.durationSeconds} builds a second backlog`);
    const heldReport = await runCommand(tools.pgbench, ['-c', String(settings.clients), '-T', String(settings.durationSeconds), ...connection.args, connection.database], connection.env);
    await source.query('CHECKPOINT');
    const held = await eachAlone('catch-up with the relay held');

    log('one transaction updating every account, both paused, the relay held');
    await pauseBoth(true);
    rss.phase('the big transaction written, the relay held');
    const updated = await source.query('UPDATE public.pgbench_accounts SET abalance = abalance + 1');
    await source.query('CHECKPOINT');
    const big = await eachAlone('the big transaction');
    log(`  (the seed: ${seed.seconds.toFixed(2)} s)`);

    const warnings = stack.logs().split('\n').filter((line) => /"level":"(warn|error)"/.test(line)).length;
    const section = renderSection({
      startedAt,
      settings,
      stackEnv,
      machine: await machineInfo(source, loadAtStart),
      pgbench,
      trackedChanges,
      native,
      pipeline,
      seedSeconds: seed.seconds,
      bigTransaction: { rows: updated.rowCount ?? 0, ...big },
      heldBacklog: { pgbench: parsePgbenchReport(heldReport.stdout), ...held },
      peakRss: Object.entries(pids).map(([service, pid]) => ({ service, bytes: peakRssBytes(pid) })),
      phasePeaks: rss.stop(),
      warnings,
    });
    process.stdout.write(`\n${section}\n`);
    appendSection(settings.reportFile, section);
    log(`appended to ${settings.reportFile}`);
  } finally {
    stopWatchingSignals();
    await cleanUp();
  }
}

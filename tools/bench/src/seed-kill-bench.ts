import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { Pool } from 'pg';
import type { ReplicationDescription } from '@svc/contracts';
import { TestStack } from '@svc/system-testing';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { benchCreateRequest, call, describeReplication } from './bench-api';
import { cleanUpOnInterrupt } from './interrupt';
import { appendSection } from './bench-report';
import { benchStackEnv, type BenchSettings } from './bench-settings';
import { fingerprints, waitUntilConsistent } from './consistency';
import { machineInfo } from './machine-info';
import { libpqArguments, locatePostgresTools, runCommand } from './postgres-tools';

/** Chunks of 32 MiB unless SEED_CHUNK_KB says otherwise: pgbench_accounts at scale 100 (~1.3 GB) is cut into ~40. */
const DEFAULT_CHUNK_KB = String(32 * 1024);
const POLL_MS = 250;
const DEADLINE_MS = 60 * 60_000;
const TABLE = '[public].[pgbench_accounts]';

type Interruption = 'none' | 'workers' | 'nats';

interface SeedRun {
  interruption: Interruption;
  schema: string;
  /** Create → every table Tracking or Untracked. */
  trackingAfter: number;
  /** Create → the warehouse's fingerprints equal the source's (writes stopped at Tracking). */
  equalAfter: number;
  chunks: number;
  /** Chunks loaded when the interruption came. */
  chunksAtInterruption: number | null;
  interruptedAfter: number | null;
}

/**
 * A chunked seed of pgbench_accounts with pgbench writing throughout, three times: uninterrupted; with extractor,
 * stager and loader SIGKILLed once about half the chunks are loaded; and with the nats-server restarted at the same
 * point. Each is timed until every table is Tracking and then until the warehouse's fingerprints equal the source's
 * (issue 39's goal: an interrupted seed in at most 1.2× an uninterrupted one, exactly equal).
 */
export async function runSeedKillBenchmark(settings: BenchSettings, logFile: string, log: (line: string) => void): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  const stackEnv = { ...benchStackEnv(process.env), SEED_CHUNK_KB: process.env['SEED_CHUNK_KB']?.trim() || DEFAULT_CHUNK_KB };
  const stack = new TestStack({ workers: ['extractor', 'stager', 'loader'], env: stackEnv });
  const pools: Pool[] = [];
  const stagings: TempDatabase[] = [];
  let writer: ChildProcess | undefined;
  const cleanUp = async () => {
    writer?.kill('SIGTERM');
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await Promise.allSettled(stagings.map((database) => database.drop()));
    await stack.stop();
    mkdirSync(dirname(logFile), { recursive: true });
    writeFileSync(logFile, stack.logs());
  };
  const stopWatchingSignals = cleanUpOnInterrupt(cleanUp, log);
  try {
    log('starting the services, a private nats-server, an S3 server and temporary databases');
    await stack.start();
    const source = new Pool({ connectionString: stack.source.url, max: 2 });
    const warehouse = new Pool({ connectionString: stack.warehouse.url, max: 2 });
    pools.push(source, warehouse);
    const startedAt = new Date();
    const connection = libpqArguments(stack.source.url);
    log(`pgbench -i -s ${settings.scale}`);
    await runCommand(tools.pgbench, ['-i', '-q', '-s', String(settings.scale), ...connection.args, connection.database], connection.env);
    const { rows: size } = await source.query<{ bytes: string }>(`SELECT pg_table_size('public.pgbench_accounts') AS bytes`);

    const runs: SeedRun[] = [];
    for (const interruption of ['none', 'workers', 'nats'] as const) {
      const schema = `bench_seed_${interruption}`;
      log(`seed into ${schema} (${interruption === 'none' ? 'uninterrupted' : interruption === 'workers' ? 'extractor, stager and loader killed at half' : 'nats-server restarted at half'}), pgbench -c ${settings.clients} writing`);
      writer = spawn(tools.pgbench, ['-n', '-c', String(settings.clients), '-T', '3600', ...connection.args, connection.database], { env: { ...process.env, ...connection.env }, stdio: 'ignore' });
      // A staging database of its own: a deleted replication's fences would make the next one's tables look shared
      // (merged, one chunk at a time) for a week.
      const staging = await createTempDatabase(`svc_bench_staging_${interruption}`);
      stagings.push(staging);
      const run = await seedOnce(stack, staging, schema, interruption, log);
      writer.kill('SIGTERM');
      await new Promise((done) => writer?.once('exit', done));
      writer = undefined;
      const equal = await equalAfter(source, warehouse, schema, run.started);
      runs.push({ ...run.result, equalAfter: equal });
      log(`  Tracking after ${run.result.trackingAfter.toFixed(1)} s, equal after ${equal.toFixed(1)} s (${run.result.chunks} chunks)`);
      await call(stack, 'DeleteWarehouseReplication', { replicationId: run.replicationId });
    }
    const section = renderSeedKill({ startedAt, settings, stackEnv, machine: await machineInfo(source, loadAtStart), tableBytes: Number(size[0]?.bytes ?? 0), runs });
    process.stdout.write(`\n${section}\n`);
    appendSection(settings.reportFile, section);
    log(`appended to ${settings.reportFile}`);
  } finally {
    stopWatchingSignals();
    await cleanUp();
  }
}

async function seedOnce(
  stack: TestStack,
  staging: TempDatabase,
  schema: string,
  interruption: Interruption,
  log: (line: string) => void,
): Promise<{ replicationId: string; started: number; result: Omit<SeedRun, 'equalAfter'> }> {
  const request = benchCreateRequest(stack);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const { replicationId } = await call<{ replicationId: string }>(stack, 'CreateWarehouseReplication', {
    ...request,
    staging: { ...(request['staging'] as Record<string, unknown>), connectionString: staging.url },
    warehouse: { ...(request['warehouse'] as Record<string, unknown>), databaseSchema: schema, bucketFolderName: `/${schema}` },
  });
  let chunks = 0;
  let chunksAtInterruption: number | null = null;
  let interruptedAfter: number | null = null;
  for (;;) {
    if (elapsed() * 1000 > DEADLINE_MS) throw new Error('the seed did not finish within an hour');
    const described = await describedWhileAnswering(stack, replicationId);
    if (described === null) {
      await sleep(POLL_MS);
      continue;
    }
    const failed = described.tables.find((table) => table.phase === 'Error');
    if (failed) throw new Error(`seeding failed: ${failed.name}: ${failed.lastError ?? 'no error recorded'}`);
    const accounts = described.tables.find((table) => table.name === TABLE);
    chunks = Math.max(chunks, accounts?.seedChunks ?? 0);
    const loaded = accounts?.seedChunksLoaded ?? 0;
    if (interruption !== 'none' && interruptedAfter === null && chunks > 0 && loaded >= Math.ceil(chunks / 2)) {
      chunksAtInterruption = loaded;
      interruptedAfter = elapsed();
      log(`  ${loaded} of ${chunks} chunks loaded after ${interruptedAfter.toFixed(1)} s: ${interruption === 'workers' ? 'SIGKILL of extractor, stager and loader' : 'nats-server restarted'}`);
      if (interruption === 'workers') await Promise.all((['extractor', 'stager', 'loader'] as const).map((service) => stack.restart(service, { kill: true })));
      else await stack.nats.restart();
    }
    if (described.tables.length > 0 && described.tables.every((table) => table.phase === 'Tracking' || table.phase === 'Untracked')) break;
    await sleep(POLL_MS);
  }
  return { replicationId, started, result: { interruption, schema, trackingAfter: elapsed(), chunks, chunksAtInterruption, interruptedAfter } };
}

/** Describe, or null while the gateway answers 503 (the registry unreachable during a NATS restart). */
async function describedWhileAnswering(stack: TestStack, replicationId: string): Promise<ReplicationDescription | null> {
  try {
    return await describeReplication(stack, replicationId);
  } catch (error) {
    if (error instanceof Error && error.message.includes('answered 503')) return null;
    throw error;
  }
}

/** Seconds from `started` until the warehouse's pgbench fingerprints equal the (quiet: the writes have stopped) source's. */
async function equalAfter(source: Pool, warehouse: Pool, schema: string, started: number): Promise<number> {
  const remainingMs = DEADLINE_MS - (performance.now() - started);
  if (!(await waitUntilConsistent(source, warehouse, schema, remainingMs))) {
    throw new Error(`${schema} never equalled the source: ${JSON.stringify({ expected: await fingerprints(source, 'public'), actual: await fingerprints(warehouse, schema) })}`);
  }
  return (performance.now() - started) / 1000;
}

function renderSeedKill(result: {
  startedAt: Date;
  settings: BenchSettings;
  stackEnv: Record<string, string>;
  machine: Awaited<ReturnType<typeof machineInfo>>;
  tableBytes: number;
  runs: SeedRun[];
}): string {
  const whole = result.runs.find((run) => run.interruption === 'none');
  const label: Record<Interruption, string> = {
    none: 'uninterrupted',
    workers: 'extractor, stager and loader SIGKILLed',
    nats: 'nats-server restarted',
  };
  const rows = result.runs.map((run) => {
    const ratio = whole === undefined ? Number.NaN : run.equalAfter / whole.equalAfter;
    const at = run.chunksAtInterruption === null ? '–' : `${run.chunksAtInterruption} of ${run.chunks}, at ${run.interruptedAfter?.toFixed(1)} s`;
    const verdict = run.interruption === 'none' ? '1.00' : `${ratio.toFixed(2)} (target ≤ 1.2: **${ratio <= 1.2 ? 'met' : 'missed'}**)`;
    return `| ${label[run.interruption]} | ${at} | ${run.trackingAfter.toFixed(1)} s | ${run.equalAfter.toFixed(1)} s | ${verdict} |`;
  });
  const { machine, settings, stackEnv } = result;
  return [
    `## Seed interrupted at half: scale ${settings.scale}, pgbench -c ${settings.clients} writing throughout, ${result.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${(machine.memoryBytes / 1024 ** 3).toFixed(0)} GiB RAM, ${machine.os}, Node.js ${machine.node}, PostgreSQL ${machine.postgres}; load ${machine.loadAverage.start.toFixed(2)} → ${machine.loadAverage.end.toFixed(2)}.`,
    `Command: \`BENCH_SCALE=${settings.scale} BENCH_CLIENTS=${settings.clients} npm run bench -- seed-kill\`. pgbench_accounts: ${(result.tableBytes / 1024 ** 2).toFixed(0)} MiB on disk.`,
    `Services: ${Object.entries(stackEnv).map(([name, value]) => `${name}=${value}`).join(', ')}.`,
    '',
    'Each seed is a new replication of every pgbench table into a schema of its own, timed from its Create until every table',
    'is Tracking, and until pgbench_accounts, _tellers and _branches in the warehouse (row count and sum of balances) equal',
    "the source's, pgbench writing from the Create until Tracking.",
    '',
    '| Seed | interrupted when | Tracking after | equal after | this / uninterrupted |',
    '| --- | --- | --: | --: | --: |',
    ...rows,
  ].join('\n');
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

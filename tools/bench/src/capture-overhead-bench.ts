import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { Pool } from 'pg';
import type { SourceConnector, TableWatermark } from '@svc/engines';
import { createPostgresSource } from '@svc/postgres/source';
import { appendSection, type MachineInfo } from './bench-report';
import type { BenchSettings } from './bench-settings';
import { parsePgbenchReport } from './lag-measurement';
import { machineInfo } from './machine-info';
import { libpqArguments, locatePostgresTools, locateServerPrograms, runCommand } from './postgres-tools';
import { PrivateCluster } from './private-cluster';

const DATABASE = 'bench_capture';
/** The tables pgbench writes that have a key (pgbench_history has none: the pipeline reseeds it, never tracks it). */
const TRACKED = ['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers'];
/** A login that owns the tables but may not use a replication slot: capture falls back to triggers for it. */
const TRIGGER_LOGIN = 'bench_trigger_owner';
/** How often the service's change probe asks (CHANGE_PROBE_INTERVAL_MS' default); each probe relays the log first. */
const PROBE_INTERVAL_MS = 250;

type Mode = 'off' | 'log' | 'triggers' | 'decoded';
/** The publication and slot of the 'decoded' runs (the benchmark's own, not the service's). */
const DECODE_ONLY = 'bench_decode_only';

interface Run {
  mode: Mode;
  tps: number;
  latencyMs: number;
  transactions: number;
  /** Change records the change tables gained during the run (zero without capture). */
  records: number;
}

/**
 * `npm run bench -- capture-overhead` (issue 38): what capturing changes costs the source's own writes. On a private
 * cluster with wal_level=logical, pgbench -c $BENCH_CLIENTS -T $BENCH_DURATION_S runs without capture, then
 * $BENCH_REPEATS times: with capture from the log (publication and slot, relayed as the service does, a change probe every
 * 250 ms), with the trigger fallback (a login without REPLICATION that owns the tables), with the log only decoded and
 * thrown away (pg_recvlogical: the floor of any capture from the log), and without capture again; each mode's tps is the
 * mean of its runs, against the mean of the uncaptured ones.
 */
export async function runCaptureOverheadBenchmark(settings: BenchSettings, log: (line: string) => void): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = loadavg()[0] ?? 0;
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  const programs = locateServerPrograms({ path: process.env['PATH'] });
  log('starting a private PostgreSQL cluster (wal_level=logical)');
  const cluster = await PrivateCluster.start(programs, { wal_level: 'logical', max_replication_slots: '10', max_wal_senders: '10' });
  try {
    await cluster.createDatabase(DATABASE);
    const url = cluster.url(DATABASE);
    const connection = libpqArguments(url);
    log(`pgbench -i -s ${settings.scale}`);
    await runCommand(tools.pgbench, ['-i', '-q', '-s', String(settings.scale), ...connection.args, connection.database], connection.env);
    const admin = new Pool({ connectionString: url, max: 2 });
    const machine = await machineInfo(admin, loadAtStart);
    const pgbench = async (mode: Mode, source: SourceConnector | null): Promise<Run> => {
      await admin.query('checkpoint');
      const before = await changeRecords(admin);
      const probing = source === null ? null : probeLoop(source);
      log(`pgbench -c ${settings.clients} -T ${settings.durationSeconds}, capture ${mode}`);
      const report = await runCommand(tools.pgbench, ['-c', String(settings.clients), '-T', String(settings.durationSeconds), '-n', ...connection.args, connection.database], connection.env);
      await probing?.stop();
      const parsed = parsePgbenchReport(report.stdout);
      const run = { mode, ...parsed, records: (await changeRecords(admin)) - before };
      log(`  ${run.tps.toFixed(0)} tps, ${run.records} change records`);
      return run;
    };
    // The tables belong to a login that may not replicate (its capture falls back to triggers); the superuser's is the log.
    await admin.query(`create role ${TRIGGER_LOGIN} login; grant create on database ${DATABASE} to ${TRIGGER_LOGIN}`);
    for (const table of TRACKED) await admin.query(`alter table public.${table} owner to ${TRIGGER_LOGIN}`);
    const triggerUrl = new URL(url);
    triggerUrl.username = TRIGGER_LOGIN;
    const captured = async (mode: Mode, sourceUrl: string): Promise<Run> => {
      const source = createPostgresSource(sourceUrl, { encrypt: false });
      try {
        await track(source);
        const run = await pgbench(mode, source);
        await untrack(source);
        return run;
      } finally {
        await source.close();
      }
    };
    // Interleaved, so that the machine's drift (its other tenants, the cluster's own growth) falls on every mode alike.
    const decodedOnly = async (): Promise<Run> => {
      const decoder = await startDecoder(programs.recvlogical, admin, connection);
      try {
        return await pgbench('decoded', null);
      } finally {
        await decoder.stop();
      }
    };
    const runs: Run[] = [await pgbench('off', null)];
    for (let repeat = 0; repeat < settings.repeats; repeat += 1) {
      runs.push(await captured('log', url));
      runs.push(await captured('triggers', triggerUrl.toString()));
      runs.push(await decodedOnly());
      runs.push(await pgbench('off', null));
    }
    await admin.end();
    appendSection(settings.reportFile, renderCaptureOverhead(startedAt, settings, machine, runs));
    log(`appended to ${settings.reportFile}`);
  } finally {
    await cluster.stop();
  }
}

async function track(source: SourceConnector): Promise<void> {
  for (const name of TRACKED) {
    const definition = await source.describeTable({ schema: 'public', name });
    if (definition === null) throw new Error(`public.${name} is missing`);
    await source.enableTracking(definition);
  }
}

async function untrack(source: SourceConnector): Promise<void> {
  for (const name of TRACKED) await source.disableTracking({ schema: 'public', name });
}

/**
 * What any reader of the log costs the source, the floor of capture from it: pg_recvlogical streams a publication of the
 * same tables (pgoutput, protocol 1) and throws the messages away, so the server decodes and sends as for the service.
 */
async function startDecoder(recvlogical: string, admin: Pool, connection: ReturnType<typeof libpqArguments>): Promise<{ stop(): Promise<void> }> {
  await admin.query(`create publication ${DECODE_ONLY} for table ${TRACKED.map((table) => `public.${table}`).join(', ')}`);
  await admin.query(`select pg_create_logical_replication_slot('${DECODE_ONLY}', 'pgoutput')`);
  const args = [...connection.args, '--dbname', connection.database, '--slot', DECODE_ONLY, '--start', '--file', '/dev/null', '--option', 'proto_version=1', '--option', `publication_names=${DECODE_ONLY}`, '--no-loop'];
  const child = spawn(recvlogical, args, { env: { ...process.env, ...connection.env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    stop: async () => {
      const early = child.exitCode !== null;
      child.kill('SIGINT');
      await exited;
      await admin.query(`select pg_drop_replication_slot('${DECODE_ONLY}')`);
      await admin.query(`drop publication ${DECODE_ONLY}`);
      if (early) throw new Error(`pg_recvlogical ended during the run: ${Buffer.concat(stderr).toString('utf8').trim().slice(-1000)}`);
    },
  };
}

/** The change probe of the tracked tables every PROBE_INTERVAL_MS, from their minimum valid versions, until stopped. */
function probeLoop(source: SourceConnector): { stop(): Promise<void> } {
  let running = true;
  const done = (async () => {
    const watermarks: TableWatermark[] = [];
    for (const name of TRACKED) watermarks.push({ table: { schema: 'public', name }, version: (await source.minValidVersion({ schema: 'public', name })) ?? '1' });
    while (running) {
      await source.changedTables(watermarks, { schemaStamps: false });
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** Rows in the change tables now (0 when there are none). */
async function changeRecords(pool: Pool): Promise<number> {
  const tables = await pool.query<{ name: string }>("select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'svc_ct' and tablename like 'public.%'");
  let total = 0;
  for (const { name } of tables.rows) total += Number((await pool.query<{ n: string }>(`select count(*)::text as n from ${name}`)).rows[0]?.n ?? 0);
  return total;
}

const MODE_NAMES: Record<Mode, string> = { off: 'no capture', log: 'from the log', triggers: 'triggers', decoded: 'decoded only (pg_recvlogical)' };

function renderCaptureOverhead(startedAt: Date, settings: BenchSettings, machine: MachineInfo, runs: Run[]): string {
  const baseline = runs.filter((run) => run.mode === 'off').reduce((sum, run, _, all) => sum + run.tps / all.length, 0);
  const row = (run: Run) =>
    `| ${MODE_NAMES[run.mode]} | ${run.tps.toFixed(1)} | ${run.latencyMs.toFixed(2)} | ${run.transactions.toLocaleString('en-US')} | ${run.records.toLocaleString('en-US')} | ${(run.tps / baseline).toFixed(3)} |`;
  const ratio = (mode: Mode) => runs.filter((run) => run.mode === mode).reduce((sum, run, _, all) => sum + run.tps / all.length, 0) / baseline;
  const offRuns = runs.filter((run) => run.mode === 'off').map((run) => run.tps);
  const offSpread = (Math.max(...offRuns) - Math.min(...offRuns)) / baseline;
  return [
    `## Capture overhead: scale ${settings.scale}, pgbench -c ${settings.clients} -T ${settings.durationSeconds}, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM, ${machine.os}, Node.js ${machine.node}, ${machine.postgres}`,
    `- Load average (1 min) at the start: ${machine.loadAverage.start.toFixed(2)}`,
    '- A private cluster (wal_level=logical, fsync on, PostgreSQL defaults otherwise); the runs in order, the captured ones',
    `  interleaved with uncaptured ones (${settings.repeats} rounds); the relay runs in the benchmark's process (a change probe every 250 ms),`,
    '  on the same machine as the source and pgbench.',
    '',
    '| capture | tps | latency ms | transactions | change records | × no capture |',
    '|---|--:|--:|--:|--:|--:|',
    ...runs.map(row),
    '',
    `Log capture: ${ratio('log').toFixed(3)}× the mean uncaptured tps (goal ≥ 0.95: ${ratio('log') >= 0.95 ? 'met' : 'not met'}); the trigger fallback: ${ratio('triggers').toFixed(3)}×;`,
    `the log decoded and thrown away (pg_recvlogical, what any reader of the log costs): ${ratio('decoded').toFixed(3)}×;`,
    `the uncaptured runs spread over ${(offSpread * 100).toFixed(1)} % of their mean.`,
    '',
  ].join('\n');
}

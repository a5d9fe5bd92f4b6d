import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { BenchSettings } from './bench-settings';
import type { CpuSpent } from './cpu-usage';
import type { LatencyStats } from './latency-stats';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  os: string;
  node: string;
  postgres: string;
  /** 1-minute load average when the run started and when it ended: other work on the machine skews figures. */
  loadAverage: { start: number; end: number };
}

export interface RawPipeFigure {
  table: string;
  rows: number;
  /** pg_table_size of the source table (heap and TOAST, no indexes). */
  bytes: number;
  seconds: number;
}

export interface BenchResult {
  startedAt: Date;
  machine: MachineInfo;
  settings: BenchSettings;
  stackEnv: Record<string, string>;
  parallelTables: number;
  initSeconds: number;
  rawPipe: RawPipeFigure[];
  /** The design's floor: each table read once and written into two databases at once. */
  floor: RawPipeFigure[];
  seed: { seconds: number; rows: number; settledAfter: Record<string, number>; files: { count: number; firstAt: number; lastAt: number } };
  lag: {
    stats: LatencyStats;
    probesWritten: number;
    probeFailures: number;
    pgbench: { tps: number; latencyMs: number; transactions: number };
    /** Seconds after pgbench ended until the warehouse's pgbench tables equalled the source's; null if they never did. */
    caughtUpSeconds: number | null;
  };
  peakRss: { service: string; bytes: number | null }[];
  /** CPU seconds by process during the seed and during the lag run. */
  cpu: { seed: CpuSpent; lag: CpuSpent };
  /** Lines the services logged at warn or error level. */
  warnings: number;
  /** Where the services' logs of the run were written. */
  logFile: string;
}

export const TARGETS = { seedToFloor: 0.8, lagP99Seconds: 1 } as const;

export const BENCHMARKS_HEADER = `# Benchmarks

\`npm run bench\` (tools/bench) measures the pipeline — PostgreSQL source → staging database → gzip CSV in S3 →
PostgreSQL warehouse, over NATS JetStream — on the machine it runs on, and appends a dated section to this file.
It starts its own stack (job-registry, api-gateway, extractor, stager, loader as separate processes from \`dist/\`,
a private \`nats-server\`, an in-process S3 server and temporary databases), so it needs PostgreSQL at
\`postgres://postgres@127.0.0.1:5432\` (trust authentication, or \`TEST_POSTGRES_URL\`), the \`nats-server\` binary
and PostgreSQL's client programs (\`pgbench\`, \`psql\`, \`pg_dump\`, found on PATH or under \`/usr/lib/postgresql/*/bin\`).

\`\`\`bash
npm run bench                                             # BENCH_SCALE=20 BENCH_DURATION_S=60 BENCH_CLIENTS=4
BENCH_SCALE=5 BENCH_DURATION_S=30 BENCH_CLIENTS=2 npm run bench
\`\`\`

What each section reports:

1. **Raw pipe** — a bare copy: \`psql -c "\\copy t to stdout" | psql -c "\\copy t from stdin"\` per pgbench
   table into a scratch database with the same empty tables (\`pg_dump --schema-only | psql\`). MB are the source
   tables' \`pg_table_size\`.
2. **Two-write floor** — the design's own floor: each table read once and written into two scratch databases at once
   (\`psql \\copy … to stdout | tee\` into two \`psql \\copy … from stdin\`), as the pipeline reads the source once and
   writes staging and the warehouse.
3. **Seed** — from the signed \`CreateWarehouseReplication\` (SCD Type1, \`TablesToInclude\` All) until every table is
   Tracking or Untracked *and* every warehouse row count equals the source's. The ratios raw pipe seconds / seed
   seconds and floor seconds / seed seconds say what share of a bare copy's and of the design's speed the pipeline
   reaches (target ≥ ${TARGETS.seedToFloor} of the floor). Beyond the floor's two writes the pipeline also writes gzip CSV to S3
   and carries the rows over NATS.
4. **Lag** — during \`pgbench -c $BENCH_CLIENTS -T $BENCH_DURATION_S\` on the source, a probe row
   (\`public.bench_probe\`, \`written_at = clock_timestamp()\`) is inserted every 200 ms from its own connection and the
   warehouse is polled every 50 ms; a probe's lag is the database clock when it is first seen in the warehouse minus
   its \`written_at\`. Percentiles are nearest-rank over all probes (target p99 ≤ ${TARGETS.lagP99Seconds} s). pgbench's own tps is
   the source's throughput with change tracking on. "Caught up" is how long after pgbench ended the warehouse's
   pgbench tables held the source's row counts and balance sums.
5. **Peak RSS** — \`VmHWM\` of each service process (and the private \`nats-server\`) at the end of the run.
6. **CPU seconds** per process during the seed and during the lag run, from \`/proc/<pid>/stat\`; "bench" is the
   benchmark's own process, which also runs the S3 server; "rest" is the machine's remaining busy time: PostgreSQL,
   pgbench, psql and anything else running. With few CPUs this shows what the pipeline's time went to.

\`npm run bench -- many-tables\` measures lag against the number of tables (issue 23, goal 3): \`BENCH_TABLES\` tables
(default 1000) of 100 rows, one replication of All tables with ParallelTablesLimit \`BENCH_PARALLEL_TABLES\` (10) and the
services' defaults; it reports the seed, the CPU of \`BENCH_IDLE_S\` seconds (20) of idling, the lag of \`BENCH_SAMPLES\`
(30) single-row changes each in a random table, and how long one change in every table (one transaction) takes.

\`npm run bench -- catch-up\` measures a backlog's catch-up against PostgreSQL's native logical replication (issue 23,
goals 2 and 4): it starts a PostgreSQL cluster of its own (\`initdb\` into a temporary folder, \`wal_level=logical\`, a free
port; as root the server runs as the \`postgres\` user), loads pgbench there (\`pgbench_history\` gets a surrogate key so
both sides track it), subscribes a database of the server on 5432 to it (publication + subscription) and seeds the
pipeline from it; then pauses both (\`ALTER SUBSCRIPTION … DISABLE\`, \`StopReplicationService\`), runs
\`pgbench -c $BENCH_CLIENTS -T $BENCH_DURATION_S\`, and lets each catch up alone, native first, timed until the tables'
counts and sums equal the source's.

The load average is printed because other work on the machine skews every figure. Service settings can be
overridden for an experiment through the environment (e.g. \`SEED_PART_MB=16 npm run bench\`); each section
records what was used. The services' logs of the last run are kept in \`tmp/bench-services.log\`.

\`npm run bench -- gateway-load\` (or \`npm run bench:gateway\`) measures the api-gateway's responsiveness instead: it
starts the job-registry and the api-gateway from \`dist/\` (a private \`nats-server\`, a temporary control database) and,
for each load, has \`BENCH_GATEWAY_CALLERS\` callers (default 4) post one hostile body just under the 1 MiB limit over
and over for \`BENCH_GATEWAY_SECONDS\` (default 15) while \`/health\` is asked every 100 ms, one probe at a time (a late
answer delays the next probe). The loads: none (the baseline); 130,000 empty XML elements, signed and unsigned (an
unsigned call is refused with 403 before its body is decoded); 100,000 JSON keys; JSON arrays nested half a million
deep; one 1 MiB JSON string. Each section gives \`/health\`'s p50, p99 and max, how the hostile calls were answered and
how long they took, and the gateway's CPU seconds.
`;

const MIB = 1024 * 1024;

function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

function count(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

/** `extractor 5.1, stager 7.2, …, bench 2.0, rest 12.3 (machine busy 30.1 of 34.0 CPU-s: 17.0 s × 2 CPUs)` */
export function cpuLine(spent: CpuSpent, cpus: number): string {
  const { wallSeconds } = spent;
  const parts = Object.entries(spent.processes).map(([name, seconds]) => `${name} ${fixed(seconds)}`);
  parts.push(`bench ${fixed(spent.self)}`, `rest ${fixed(spent.rest)}`);
  return `${parts.join(', ')} (machine busy ${fixed(spent.machine)} of ${fixed(wallSeconds * cpus)} CPU-s: ${fixed(wallSeconds)} s × ${cpus} CPUs)`;
}

function verdict(met: boolean): string {
  return met ? 'met' : '**missed**';
}

export function rawPipeTotals(figures: RawPipeFigure[]): RawPipeFigure {
  return figures.reduce((total, figure) => ({ table: 'total', rows: total.rows + figure.rows, bytes: total.bytes + figure.bytes, seconds: total.seconds + figure.seconds }), {
    table: 'total',
    rows: 0,
    bytes: 0,
    seconds: 0,
  });
}

/** raw pipe seconds / pipeline seed seconds: 1 means as fast as a bare copy. */
export function seedRatio(result: BenchResult): number {
  return rawPipeTotals(result.rawPipe).seconds / result.seed.seconds;
}

/** two-write floor seconds / pipeline seed seconds: 1 means as fast as the design allows (issue 23's target ≥ 0.8). */
export function seedToFloor(result: BenchResult): number {
  return rawPipeTotals(result.floor).seconds / result.seed.seconds;
}

/** The dated Markdown section appended to BENCHMARKS.md (also the console summary). */
export function renderSection(result: BenchResult): string {
  const { machine, settings, seed, lag } = result;
  const when = result.startedAt.toISOString().slice(0, 16).replace('T', ' ');
  const total = rawPipeTotals(result.rawPipe);
  const ratio = seedRatio(result);
  const floorTotal = rawPipeTotals(result.floor);
  const toFloor = seedToFloor(result);
  const env = Object.entries(result.stackEnv)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
  const pipeRow = (figure: RawPipeFigure) =>
    `| ${figure.table} | ${count(figure.rows)} | ${fixed(figure.bytes / MIB)} | ${fixed(figure.seconds, 2)} | ${fixed(figure.bytes / MIB / figure.seconds)} |`;
  const settled = Object.entries(seed.settledAfter)
    .sort(([, a], [, b]) => a - b)
    .map(([table, seconds]) => `${table} ${fixed(seconds)} s`)
    .join(', ');
  const seen = lag.stats.count;
  return [
    `## ${when} UTC — scale ${settings.scale}, ${settings.durationSeconds} s, ${settings.clients} clients`,
    '',
    `- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${fixed(machine.memoryBytes / 1024 / MIB)} GiB RAM, ${machine.os}, Node.js ${machine.node}, PostgreSQL ${machine.postgres}`,
    `- Load average (1 min): ${fixed(machine.loadAverage.start, 2)} at the start, ${fixed(machine.loadAverage.end, 2)} at the end`,
    `- Settings: BENCH_SCALE=${settings.scale}, BENCH_DURATION_S=${settings.durationSeconds}, BENCH_CLIENTS=${settings.clients}, BENCH_STAGERS=${settings.stagers}, BENCH_LOADERS=${settings.loaders}; services: ${env}; ParallelTablesLimit ${result.parallelTables}, ScdType Type1`,
    `- \`pgbench -i -s ${settings.scale}\`: ${fixed(result.initSeconds)} s`,
    '',
    '**Raw pipe** (psql \\copy | psql \\copy into a scratch database)',
    '',
    '| table | rows | MB | seconds | MB/s |',
    '|---|--:|--:|--:|--:|',
    ...result.rawPipe.map(pipeRow),
    pipeRow(total),
    '',
    "**Two-write floor** (psql \\copy | tee into two scratch databases' psql \\copy: the design's one read, two writes)",
    '',
    '| table | rows | MB | seconds | MB/s |',
    '|---|--:|--:|--:|--:|',
    ...result.floor.map(pipeRow),
    pipeRow(floorTotal),
    '',
    '**Seed through the pipeline** (Create → every table Tracking/Untracked and warehouse counts equal)',
    '',
    '| seconds | rows | rows/s | MB/s | raw pipe s / seed s | floor s / seed s |',
    '|--:|--:|--:|--:|--:|--:|',
    `| ${fixed(seed.seconds, 2)} | ${count(seed.rows)} | ${count(seed.rows / seed.seconds)} | ${fixed(total.bytes / MIB / seed.seconds)} | ${fixed(ratio, 2)} | ${fixed(toFloor, 2)} (target ≥ ${TARGETS.seedToFloor}: ${verdict(toFloor >= TARGETS.seedToFloor)}) |`,
    '',
    `Tables settled after: ${settled}. Batch data files in S3: ${seed.files.count}, the first ${fixed(seed.files.firstAt)} s and the last ${fixed(seed.files.lastAt)} s after Create.`,
    '',
    `CPU seconds during the seed: ${cpuLine(result.cpu.seed, machine.cpus)}.`,
    '',
    `**Lag under load** (pgbench -c ${settings.clients} -T ${settings.durationSeconds}; probe every 200 ms, warehouse polled every 50 ms)`,
    '',
    '| probes seen/written | p50 s | p95 s | p99 s | max s | mean s |',
    '|--:|--:|--:|--:|--:|--:|',
    `| ${seen}/${lag.probesWritten} | ${fixed(lag.stats.p50, 2)} | ${fixed(lag.stats.p95, 2)} | ${fixed(lag.stats.p99, 2)} | ${fixed(lag.stats.max, 2)} | ${fixed(lag.stats.mean, 2)} |`,
    '',
    `p99 target ≤ ${TARGETS.lagP99Seconds} s: ${verdict(lag.stats.p99 <= TARGETS.lagP99Seconds && seen === lag.probesWritten)}.` +
      (lag.probeFailures ? ` ${lag.probeFailures} probe inserts failed.` : '') +
      ` pgbench: ${fixed(lag.pgbench.tps)} tps, latency average ${fixed(lag.pgbench.latencyMs, 2)} ms, ${count(lag.pgbench.transactions)} transactions.` +
      ` Warehouse caught up ${lag.caughtUpSeconds === null ? 'never (within the deadline)' : `${fixed(lag.caughtUpSeconds)} s`} after pgbench ended.`,
    '',
    `CPU seconds during the lag run: ${cpuLine(result.cpu.lag, machine.cpus)}.`,
    '',
    `**Peak RSS (VmHWM)**: ${result.peakRss.map((entry) => `${entry.service} ${entry.bytes === null ? 'n/a' : `${fixed(entry.bytes / MIB, 0)} MiB`}`).join(', ')}.`,
    '',
    `Warn/error lines logged by the services: ${result.warnings} (logs: \`${result.logFile}\`).`,
    '',
  ].join('\n');
}

/** Appends a section, creating the file with its explanatory header when it does not exist yet. */
export function appendSection(file: string, section: string): void {
  if (!existsSync(file) || readFileSync(file, 'utf8').trim() === '') {
    writeFileSync(file, `${BENCHMARKS_HEADER}\n${section}`);
    return;
  }
  const current = readFileSync(file, 'utf8');
  appendFileSync(file, `${current.endsWith('\n\n') ? '' : current.endsWith('\n') ? '\n' : '\n\n'}${section}`);
}

import { EnvReader } from '@svc/config';

export interface BenchSettings {
  /** pgbench scale factor: 100,000 accounts per unit. */
  scale: number;
  /** Seconds of pgbench load during the lag measurement. */
  durationSeconds: number;
  /** pgbench client connections. */
  clients: number;
  /** Where the dated result section is appended. */
  reportFile: string;
  /** Stager and loader processes (BENCH_STAGERS, BENCH_LOADERS): more than one shows how the stages scale out. */
  stagers: number;
  loaders: number;
  /** BENCH_BATCH_LIMIT: the replication's ChangeTrackingBatchLimit (catch-up mode); null leaves the default. */
  batchLimit: number | null;
  /** BENCH_REPEATS: rounds of captured runs, each followed by an uncaptured one (capture-overhead mode). Default 2. */
  repeats: number;
}

/** How the probe lag is sampled. */
export const PROBE_INTERVAL_MS = 200;
export const WAREHOUSE_POLL_MS = 50;

/** The tables `pgbench -i` creates. */
export const PGBENCH_TABLES = ['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers', 'pgbench_history'];

/** The warehouse schema the benchmark replicates into. */
export const BENCH_WAREHOUSE_SCHEMA = 'bench';

/** The replication's ParallelTablesLimit: every pgbench table plus the probe at once. */
export const BENCH_PARALLEL_TABLES = 8;

/**
 * Service settings tuned for throughput on one machine. Scheduler tick and idle delay are short so an
 * idle table is looked at again quickly. One batch at a time per worker: the parts of one table's seed
 * must be applied in order, and a worker holding several parts makes the later ones wait for the earlier
 * one through redeliveries with backoff; measured at scale 20 on 2 CPUs, WORKER_CONCURRENCY=1 seeded in
 * 12 s, 4 in 15 s, and 2 with 32 MB parts exhausted the redeliveries and restarted the seed for 130 s.
 * Lag stayed the same. Parts of 64 MB still let extract, stage and load overlap.
 */
export const BENCH_STACK_ENV: Record<string, string> = {
  SCHEDULER_TICK_MS: '100',
  IDLE_CYCLE_DELAY_MS: '100',
  WORKER_CONCURRENCY: '1',
  SEED_PART_MB: '64',
  // The services' default: pgbench_accounts is cut into key-range chunks from scale 10 on (128 MiB each).
  SEED_CHUNK_KB: String(128 * 1024),
  ROW_CHUNK_BYTES: String(512 * 1024),
  // The services' default, stated: test stacks deliver a killed worker's work again after 5 s.
  NATS_ACK_WAIT_SECONDS: '15',
  // The services' default, stated: `REBUILD_PERCENT=0 npm run bench -- catch-up` measures big batches merged key by key.
  REBUILD_PERCENT: '30',
  LOG_LEVEL: 'info',
};

/** The services' settings: BENCH_STACK_ENV, each overridable from the environment (e.g. `SEED_PART_MB=32 npm run bench`). */
export function benchStackEnv(environment: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(BENCH_STACK_ENV).map(([name, value]) => [name, environment[name]?.trim() || value]));
}

export function loadBenchSettings(environment: Record<string, string | undefined>, defaultReportFile: string): BenchSettings {
  const env = new EnvReader(environment);
  const settings: BenchSettings = {
    scale: env.int('BENCH_SCALE', 20, { min: 1, max: 10000 }),
    durationSeconds: env.int('BENCH_DURATION_S', 60, { min: 5, max: 86400 }),
    clients: env.int('BENCH_CLIENTS', 4, { min: 1, max: 1000 }),
    reportFile: env.string('BENCH_REPORT_FILE', defaultReportFile),
    stagers: env.int('BENCH_STAGERS', 1, { min: 1, max: 8 }),
    loaders: env.int('BENCH_LOADERS', 1, { min: 1, max: 8 }),
    batchLimit: environment['BENCH_BATCH_LIMIT'] === undefined ? null : env.int('BENCH_BATCH_LIMIT', 500000, { min: 1, max: 2147483647 }),
    repeats: env.int('BENCH_REPEATS', 2, { min: 1, max: 20 }),
  };
  env.done();
  return settings;
}

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
}

/** How the probe lag is sampled. */
export const PROBE_INTERVAL_MS = 200;
export const WAREHOUSE_POLL_MS = 50;

/** The warehouse schema the benchmark replicates into. */
export const BENCH_WAREHOUSE_SCHEMA = 'bench';

/** The replication's ParallelTablesLimit: every pgbench table plus the probe at once. */
export const BENCH_PARALLEL_TABLES = 8;

/**
 * Service settings tuned for throughput on one machine. Scheduler tick and idle delay are short so an
 * idle table is looked at again quickly; seed parts are large enough that a part's fixed costs (shadow
 * table, manifest, merge) stay small, small enough that extract, stage and load overlap.
 */
export const BENCH_STACK_ENV: Record<string, string> = {
  SCHEDULER_TICK_MS: '100',
  IDLE_CYCLE_DELAY_MS: '100',
  WORKER_CONCURRENCY: '4',
  SEED_PART_MB: '64',
  LOG_LEVEL: 'info',
};

export function loadBenchSettings(environment: Record<string, string | undefined>, defaultReportFile: string): BenchSettings {
  const env = new EnvReader(environment);
  const settings: BenchSettings = {
    scale: env.int('BENCH_SCALE', 20, { min: 1, max: 10000 }),
    durationSeconds: env.int('BENCH_DURATION_S', 60, { min: 5, max: 86400 }),
    clients: env.int('BENCH_CLIENTS', 4, { min: 1, max: 1000 }),
    reportFile: env.string('BENCH_REPORT_FILE', defaultReportFile),
  };
  env.done();
  return settings;
}

import { EnvReader } from './env-reader';
import { readNatsSettings, readS3Settings, readWorkerKey, type NatsSettings, type S3ServiceSettings } from './common';
import { readProbeSettings, type ProbeSettings } from './probes';

export type LogLevelSetting = 'debug' | 'info' | 'warn' | 'error';

const LOG_LEVEL_SETTINGS: readonly LogLevelSetting[] = ['debug', 'info', 'warn', 'error'];

/** LOG_LEVEL, any case; another value is a problem naming the setting and its choices, not a silent `info`. */
export function readLogLevel(env: EnvReader): LogLevelSetting {
  const text = env.string('LOG_LEVEL', 'info').trim().toLowerCase();
  const level = LOG_LEVEL_SETTINGS.find((choice) => choice === text);
  if (level === undefined) env.problem(`LOG_LEVEL: must be one of ${LOG_LEVEL_SETTINGS.join(', ')}`);
  return level ?? 'info';
}

/** Settings every pipeline worker (extractor, stager, loader) reads at boot. */
export interface WorkerConfig {
  nats: NatsSettings;
  logLevel: LogLevelSetting;
  s3: S3ServiceSettings;
  /** SVC_WORKER_KEY: proves this worker to the registry and opens the configurations it answers. */
  workerKey: Buffer;
  /** Row messages are at most this big (NATS allows 1 MiB by default). */
  rowChunkBytes: number;
  /** Seeds are cut into parts of about this many bytes, each a batch of its own. */
  seedPartBytes: number;
  /** A keyed, tracked table bigger than this is seeded in key-range chunks of about this size (0: never). */
  seedChunkBytes: number;
  /** Batches one instance works on at once. */
  concurrency: number;
  /** VALIDATION_MAX_ROWS_PER_SECOND: rows a table's validation reads from the source per second at most (extractor; 0: no cap). */
  validationMaxRowsPerSecond: number;
  /** The connection pools this instance keeps to each database it works on. */
  pools: WorkerPools;
  /**
   * ALLOW_LOOPBACK_TARGETS (default false), as job-registry reads it: whether this worker's connections may reach
   * loopback addresses. Every connect resolves the host again and is held to the host policy's address classes.
   */
  allowLoopbackTargets: boolean;
  /**
   * REBUILD_PERCENT (default 30; 0: never) and REBUILD_MIN_ROWS (default 10000): a change batch that changes at least
   * that share of its table's rows, and at least that many, rebuilds the table where the engine can (PostgreSQL staging
   * and Type1 warehouse tables) instead of deleting and inserting each key.
   */
  rebuild: { share: number; minRows: number };
  /** PROBE_PORT / PROBE_HOST: the process's /health, /live and /ready (null: not served). */
  probes: ProbeSettings | null;
}

/**
 * Connections per database (one pool per connection string and role) and how long a work waits for one. The
 * defaults follow the work they serve, so that no work of the instance waits on another for a connection: an
 * extractor runs WORKER_CONCURRENCY extracts (one source connection each) and as many table validations (two each: a
 * snapshot and its reads of the keys changed since), and a validation waits for change cycles to pass its snapshot,
 * so validations must never take the connections those cycles need: 3 × WORKER_CONCURRENCY. Stagers and loaders hold
 * one connection a batch.
 */
export interface WorkerPools {
  /** SOURCE_MAX_CONNECTIONS (default 3 × WORKER_CONCURRENCY). */
  sourceConnections: number;
  /** STAGING_MAX_CONNECTIONS (default the larger of 10 and 2 × WORKER_CONCURRENCY). */
  stagingConnections: number;
  /** WAREHOUSE_MAX_CONNECTIONS (default 2 × WORKER_CONCURRENCY). */
  warehouseConnections: number;
  /** POOL_WAIT_SECONDS × 1000 (default 60 s): then the pool is reported busy and the work retried. */
  waitMs: number;
}

export function loadWorkerConfig(environment: Record<string, string | undefined>): WorkerConfig {
  const env = new EnvReader(environment);
  const concurrency = env.int('WORKER_CONCURRENCY', 4, { min: 1, max: 64 });
  const perWork = 2 * concurrency;
  const config: WorkerConfig = {
    nats: readNatsSettings(env),
    logLevel: readLogLevel(env),
    s3: readS3Settings(env),
    workerKey: readWorkerKey(env),
    rowChunkBytes: env.int('ROW_CHUNK_BYTES', 512 * 1024, { min: 1024, max: 1024 * 1024 - 4096 }),
    seedPartBytes: env.int('SEED_PART_MB', 64, { min: 1, max: 4096 }) * 1024 * 1024,
    seedChunkBytes: env.int('SEED_CHUNK_KB', 128 * 1024, { min: 0, max: 1024 * 1024 * 1024 }) * 1024,
    concurrency,
    validationMaxRowsPerSecond: env.int('VALIDATION_MAX_ROWS_PER_SECOND', 0, { min: 0 }),
    pools: {
      sourceConnections: env.int('SOURCE_MAX_CONNECTIONS', 3 * concurrency, { min: 2, max: 1000 }),
      stagingConnections: env.int('STAGING_MAX_CONNECTIONS', Math.max(10, perWork), { min: 2, max: 1000 }),
      warehouseConnections: env.int('WAREHOUSE_MAX_CONNECTIONS', perWork, { min: 2, max: 1000 }),
      waitMs: env.int('POOL_WAIT_SECONDS', 60, { min: 1, max: 3600 }) * 1000,
    },
    allowLoopbackTargets: env.bool('ALLOW_LOOPBACK_TARGETS', false),
    rebuild: {
      share: env.int('REBUILD_PERCENT', 30, { min: 0, max: 100 }) / 100,
      minRows: env.int('REBUILD_MIN_ROWS', 10_000, { min: 1 }),
    },
    probes: readProbeSettings(env),
  };
  env.done();
  return config;
}

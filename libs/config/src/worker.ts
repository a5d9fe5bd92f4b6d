import { EnvReader } from './env-reader';
import { readNatsSettings, readS3Settings, readWorkerKey, type NatsSettings, type S3ServiceSettings } from './common';

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
  /** Batches one instance works on at once. */
  concurrency: number;
  /** VALIDATION_MAX_ROWS_PER_SECOND: rows a table's validation reads from the source per second at most (extractor; 0: no cap). */
  validationMaxRowsPerSecond: number;
}

export function loadWorkerConfig(environment: Record<string, string | undefined>): WorkerConfig {
  const env = new EnvReader(environment);
  const config: WorkerConfig = {
    nats: readNatsSettings(env),
    logLevel: readLogLevel(env),
    s3: readS3Settings(env),
    workerKey: readWorkerKey(env),
    rowChunkBytes: env.int('ROW_CHUNK_BYTES', 512 * 1024, { min: 1024, max: 1024 * 1024 - 4096 }),
    seedPartBytes: env.int('SEED_PART_MB', 64, { min: 1, max: 4096 }) * 1024 * 1024,
    concurrency: env.int('WORKER_CONCURRENCY', 4, { min: 1, max: 64 }),
    validationMaxRowsPerSecond: env.int('VALIDATION_MAX_ROWS_PER_SECOND', 0, { min: 0 }),
  };
  env.done();
  return config;
}

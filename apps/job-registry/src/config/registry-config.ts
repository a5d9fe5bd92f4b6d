import {
  ConfigError,
  DEFAULT_DATABASE_URL,
  DEFAULT_REGION,
  EnvReader,
  readMaxClockSkewMs,
  readNatsSettings,
  readS3Settings,
  readProbeSettings,
  readWorkerKey,
  type NatsSettings,
  type ProbeSettings,
  type S3ServiceSettings,
} from '@svc/config';
import { MAX_WORK_GROUP_MEMBERS } from '@svc/contracts';
import type { LogLevel } from '@svc/logging';
import { readDevelopmentFlag, readMasterKeys } from './master-keys';

export interface BootstrapAccessKey {
  accessKeyId: string;
  secretKey: string;
}

/** Everything job-registry reads from its environment, parsed once at boot. */
export interface RegistryConfig {
  /** The control database; created at start when missing. */
  databaseUrl: string;
  nats: NatsSettings;
  /** AES-256 key sealing secrets at rest (SVC_MASTER_KEY). */
  masterKey: Buffer;
  /** Keys of before a rotation, still opening what they sealed until it is sealed again (SVC_MASTER_KEY_PREVIOUS). */
  previousMasterKeys: Buffer[];
  /** The key shared with the pipeline workers (SVC_WORKER_KEY): runtime configurations go only to its holders, sealed. */
  workerKey: Buffer;
  /** The admin key upserted at start with every operation allowed, when configured. */
  bootstrapAccessKey: BootstrapAccessKey | null;
  /** The SVC4 region signing keys are derived for (SVC_REGION). */
  region: string;
  /** How far a signed call's X-Svc-Date may be from this clock (MAX_CLOCK_SKEW_SECONDS, as the gateway). */
  maxClockSkewMs: number;
  s3: S3ServiceSettings;
  /** One deadline for all reachability probes of a request. */
  reachabilityTimeoutMs: number;
  /** ALLOW_LOOPBACK_TARGETS: connection strings may name loopback addresses (a development setup: npm start). */
  allowLoopbackTargets: boolean;
  logLevel: LogLevel;
  pipeline: PipelineSchedulerSettings;
  /** PROBE_PORT / PROBE_HOST: the registry's /health, /live and /ready (null: not served). */
  probes: ProbeSettings | null;
  alertDelivery: AlertDeliverySettings;
}

/** How alerts reach their targets (PutAlertTarget; docs/ALERTS.md). */
export interface AlertDeliverySettings {
  /** ALERT_DELIVERY_ENABLED: off for a registry that should only answer the API (another one delivers). */
  enabled: boolean;
  pollMs: number;
  /** The longest wait between two attempts of one delivery (the backoff doubles from 1 s up to it). */
  maxBackoffMs: number;
  /** A delivery still failing this long after its alert is given up (Failed). */
  giveUpMs: number;
  /** One attempt's deadline. */
  timeoutMs: number;
  /** Deliveries attempted at the same time. */
  concurrency: number;
  /** SNS_ENDPOINT: where SNS is asked instead of the topic region's endpoint (a VPC endpoint, a test double). */
  snsEndpoint?: string;
}

/** How the scheduler turns stored state into work (DESIGN §7). */
export interface PipelineSchedulerSettings {
  /** Off for a registry instance that should only answer the API. */
  enabled: boolean;
  tickMs: number;
  /** After a change cycle that found nothing, wait this long before asking that source again, while no change probe has answered. */
  idleCycleDelayMs: number;
  /** An idle table the change probe finds unchanged still gets a change cycle this often (its watermark moves). */
  idleRecheckMs: number;
  /** Change probes of one replication start at least this far apart (CHANGE_PROBE_INTERVAL_MS). */
  changeProbeIntervalMs: number;
  /** A change probe reads schema stamps at most this often (SCHEMA_STAMP_INTERVAL_SECONDS): how soon a definition change without row changes is seen. */
  schemaStampIntervalMs: number;
  /** Each running replication's source is listed again this often (TABLE_DISCOVERY_SECONDS): how soon a table created after Create is replicated. */
  tableDiscoveryMs: number;
  /** Work in flight longer than this is released and planned again (its workers died or gave up). */
  staleWorkMs: number;
  /** The length of a scheduling "minute" (RepeatIntervalInMinutes): 60 s; shorter only for tests and demos. */
  minuteMs: number;
  /** Work in flight without a sign of life for this long no longer holds a serialized replication's slot. */
  stalledWorkMs: number;
  /**
   * Change cycles of one replication's small tables due in one pass travel as one unit of up to this many tables
   * (WORK_GROUP_TABLES, 100; 1: every table alone), applied in one staging and one warehouse transaction.
   */
  workGroupTables: number;
  /** A table whose last change cycle moved more rows than this goes alone (WORK_GROUP_MAX_ROWS). */
  workGroupMaxRows: number;
  /** Test hook (SVC_TEST_HOOK_HOLD_CLAIM_BEFORE_PUBLISH_MS): hold each claim this long before publishing it; 0 in production. */
  testHoldClaimBeforePublishMs: number;
}

export const REGISTRY_CONFIG = Symbol('REGISTRY_CONFIG');

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
/** The bootstrap key is an admin key: its secret must resist guessing outside development. */
const MIN_BOOTSTRAP_SECRET_LENGTH = 32;

/** Reads and validates the configuration; throws ConfigError naming every problem (never a secret value). */
export function readRegistryConfig(environment: Record<string, string | undefined>): RegistryConfig {
  const env = new EnvReader(environment);
  const problems: string[] = [];

  const databaseUrl = env.url('DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres', 'postgresql']);
  const nats = readNatsSettings(env);
  const development = readDevelopmentFlag(env);
  const masterKeys = readMasterKeys(env, development, problems);
  const workerKey = readWorkerKey(env);
  const bootstrapId = env.optionalString('SVC_BOOTSTRAP_ACCESS_KEY_ID');
  const bootstrapSecret = env.optionalString('SVC_BOOTSTRAP_SECRET_KEY');
  const region = env.string('SVC_REGION', DEFAULT_REGION);
  const maxClockSkewMs = readMaxClockSkewMs(env);
  const s3 = readS3Settings(env);
  const reachabilityTimeoutMs = env.int('REACHABILITY_TIMEOUT_MS', 10000, { min: 100, max: 120000 });
  const allowLoopbackTargets = env.bool('ALLOW_LOOPBACK_TARGETS', false);
  const probes = readProbeSettings(env);
  const snsEndpoint = env.optionalString('SNS_ENDPOINT');
  if (snsEndpoint !== undefined) env.url('SNS_ENDPOINT', snsEndpoint, ['http', 'https']);
  const alertDelivery: AlertDeliverySettings = {
    enabled: env.bool('ALERT_DELIVERY_ENABLED', true),
    pollMs: env.int('ALERT_DELIVERY_POLL_MS', 1000, { min: 50, max: 60000 }),
    maxBackoffMs: env.int('ALERT_RETRY_MAX_SECONDS', 60, { min: 1, max: 3600 }) * 1000,
    giveUpMs: env.int('ALERT_GIVE_UP_HOURS', 24, { min: 1, max: 168 }) * 3600000,
    timeoutMs: env.int('ALERT_DELIVERY_TIMEOUT_SECONDS', 10, { min: 1, max: 120 }) * 1000,
    concurrency: env.int('ALERT_DELIVERY_CONCURRENCY', 8, { min: 1, max: 64 }),
    ...(snsEndpoint !== undefined && { snsEndpoint }),
  };
  const logLevelText = env.string('LOG_LEVEL', 'info').toLowerCase();
  const pipeline: PipelineSchedulerSettings = {
    enabled: env.bool('SCHEDULER_ENABLED', true),
    tickMs: env.int('SCHEDULER_TICK_MS', 200, { min: 10, max: 60000 }),
    idleCycleDelayMs: env.int('IDLE_CYCLE_DELAY_MS', 500, { min: 0, max: 3600000 }),
    idleRecheckMs: env.int('IDLE_RECHECK_SECONDS', 300, { min: 1, max: 86400 }) * 1000,
    changeProbeIntervalMs: env.int('CHANGE_PROBE_INTERVAL_MS', 250, { min: 0, max: 600000 }),
    schemaStampIntervalMs: env.int('SCHEMA_STAMP_INTERVAL_SECONDS', 5, { min: 0, max: 86400 }) * 1000,
    tableDiscoveryMs: env.int('TABLE_DISCOVERY_SECONDS', 60, { min: 1, max: 86400 }) * 1000,
    staleWorkMs: env.int('STALE_WORK_MINUTES', 15, { min: 1, max: 1440 }) * 60000,
    minuteMs: env.int('SCHEDULER_MINUTE_SECONDS', 60, { min: 1, max: 60 }) * 1000,
    stalledWorkMs: env.int('STALLED_WORK_SECONDS', 60, { min: 5, max: 86400 }) * 1000,
    workGroupTables: env.int('WORK_GROUP_TABLES', 100, { min: 1, max: MAX_WORK_GROUP_MEMBERS }),
    workGroupMaxRows: env.int('WORK_GROUP_MAX_ROWS', 1000, { min: 0, max: 1000000 }),
    testHoldClaimBeforePublishMs: env.int('SVC_TEST_HOOK_HOLD_CLAIM_BEFORE_PUBLISH_MS', 0, { min: 0, max: 3600000 }),
  };

  const masterKey = masterKeys.current;
  if (workerKey.length > 0 && masterKey.length > 0 && workerKey.equals(masterKey)) {
    problems.push('SVC_WORKER_KEY: must differ from SVC_MASTER_KEY (the workers hold it; the master key stays with the registry)');
  }
  if ((bootstrapId === undefined) !== (bootstrapSecret === undefined)) {
    problems.push('SVC_BOOTSTRAP_ACCESS_KEY_ID and SVC_BOOTSTRAP_SECRET_KEY: give both or neither');
  }
  if (!development && bootstrapSecret !== undefined && bootstrapSecret.length < MIN_BOOTSTRAP_SECRET_LENGTH) {
    problems.push(`SVC_BOOTSTRAP_SECRET_KEY: must be at least ${MIN_BOOTSTRAP_SECRET_LENGTH} characters (it is an admin key's secret)`);
  }
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText);
  if (logLevel === undefined) problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}`);

  try {
    env.done();
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError([...error.problems, ...problems]);
    throw error;
  }
  if (problems.length) throw new ConfigError(problems);

  return {
    databaseUrl,
    nats,
    masterKey,
    previousMasterKeys: masterKeys.previous,
    workerKey,
    bootstrapAccessKey:
      bootstrapId !== undefined && bootstrapSecret !== undefined ? { accessKeyId: bootstrapId, secretKey: bootstrapSecret } : null,
    region,
    maxClockSkewMs,
    s3,
    reachabilityTimeoutMs,
    allowLoopbackTargets,
    logLevel: logLevel ?? 'info',
    pipeline,
    probes,
    alertDelivery,
  };
}

export { ConfigError, EnvReader } from './env-reader';
export { MAX_CLOCK_SKEW_LIMIT_SECONDS, readMaxClockSkewMs } from './clock-skew';
export {
  DEFAULT_DATABASE_URL,
  DEFAULT_NATS_URL,
  DEFAULT_REGION,
  MAX_STREAM_REPLICAS,
  SIGNING_SERVICE_NAME,
  readNatsSettings,
  readS3Settings,
  readWorkerKey,
  type NatsSettings,
  type S3ServiceSettings,
} from './common';
export { readNatsSecurity, type NatsAuth, type NatsSecurity, type NatsTls } from './nats-security';
export { loadWorkerConfig, readLogLevel, type LogLevelSetting, type WorkerConfig } from './worker';
export { isLoopbackHost } from './loopback-host';
export { readProbeSettings, type ProbeSettings } from './probes';
export { DEVELOPMENT_FLAG, DEVELOPMENT_MASTER_KEY } from './development';

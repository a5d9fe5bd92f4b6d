import { EnvReader } from './env-reader';
import { readNatsSettings, type NatsSettings } from './common';

export type LogLevelSetting = 'debug' | 'info' | 'warn' | 'error';

export function readLogLevel(env: EnvReader): LogLevelSetting {
  const level = env.string('LOG_LEVEL', 'info');
  return level === 'debug' || level === 'warn' || level === 'error' ? level : 'info';
}

/** Settings every pipeline worker (extractor, stager, loader) reads at boot. */
export interface WorkerConfig {
  nats: NatsSettings;
  logLevel: LogLevelSetting;
}

export function loadWorkerConfig(environment: Record<string, string | undefined>): WorkerConfig {
  const env = new EnvReader(environment);
  const config: WorkerConfig = { nats: readNatsSettings(env), logLevel: readLogLevel(env) };
  env.done();
  return config;
}

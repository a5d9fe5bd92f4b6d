import type { JsonLogger } from './json-logger';

export type LogFields = Record<string, unknown>;

/** A logger for one replication's lines; debug and info are silent when the replication logs errors only. */
export interface ReplicationLog {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const silent = (): void => undefined;

/**
 * The replication's IsLogErrorsOnly setting applied to a service logger: when true, only warnings and
 * errors about that replication are written. The logger's own minimum level still applies on top.
 */
export function replicationLog(logger: Pick<JsonLogger, 'debug' | 'info' | 'warn' | 'error'>, options: { isLogErrorsOnly: boolean }): ReplicationLog {
  return {
    debug: options.isLogErrorsOnly ? silent : (message, fields = {}) => logger.debug(message, fields),
    info: options.isLogErrorsOnly ? silent : (message, fields = {}) => logger.info(message, fields),
    warn: (message, fields = {}) => logger.warn(message, fields),
    error: (message, fields = {}) => logger.error(message, fields),
  };
}

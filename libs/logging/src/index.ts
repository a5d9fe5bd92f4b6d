export { JsonLogger, type LogLevel, type LogSink } from './json-logger';
export { REDACTED, redact, redactText } from './redact';
export { replicationLog, type LogFields, type ReplicationLog } from './replication-log';
export {
  adoBoolean,
  adoValue,
  normaliseAdoKey,
  parseAdoConnectionString,
  readAdoPairs,
  type AdoPair,
  type AdoPairs,
} from './connection-strings/ado-connection-string';

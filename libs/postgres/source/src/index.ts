export { createPostgresSource, type PostgresSourceOptions } from './postgres-source';
export { RowStreamAbandonedError } from '@svc/postgres/common';
export { InvalidVersionError } from './versions';
export { CHANGE_SCHEMA, TRACKED_TABLES, trackingNames, type TrackingNames } from './identifiers';
export { holdLogRelay, releaseLogRelay } from './log/log-relay';

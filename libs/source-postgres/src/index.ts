export { createPostgresSource, type PostgresSourceOptions } from './postgres-source';
export { ChangesPurgedError, PrimaryKeyRequiredError, StaleDefinitionError, TableNotTrackedError } from './errors';
export { RowStreamAbandonedError } from './copy-out';
export { InvalidVersionError } from './versions';
export { CHANGE_SCHEMA, TRACKED_TABLES, trackingNames, type TrackingNames } from './identifiers';

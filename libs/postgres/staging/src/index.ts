export { UnsupportedPostgresTypeError } from './identifiers';
export { createPostgresStaging, type PostgresStagingOptions } from './postgres-staging';

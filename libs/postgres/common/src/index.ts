export { copyIn } from './copy-in';
export { RowStreamAbandonedError, streamCopyOut } from './copy-out';
export { createPool } from './pool';
export { columnList, qualifiedName, quoteIdent, quoteLiteral } from './quoting';
export { inTransaction, openTransaction, rollbackAndRelease, type TransactionControl } from './transaction';
export { POSTGRES_USER_TABLES_FILTER, postgresAccess, postgresConnectionFailure, probePostgres } from './postgres-access';
export { postgresClientConfig, warehouseClientConfig } from './postgres-config';
export { isPostgresMissingObject, postgresErrorKind } from './postgres-errors';
export { postgresFailureReason } from './postgres-failure';

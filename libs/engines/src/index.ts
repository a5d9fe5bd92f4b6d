export type { ApplyOutcome, CsvChunks } from './batch';
export type {
  ChangedTables,
  ChangeProbeOptions,
  PurgeOutcome,
  ChangeRead,
  GroupedFiles,
  GroupedRows,
  RowStream,
  ReadOptions,
  SeedChunkPlan,
  SeedKeyRange,
  SnapshotRead,
  SourceConnector,
  SourceIncarnation,
  StagedFileReader,
  StagingConnector,
  TableEnsured,
  TableWatermark,
  WarehouseConnector,
  WarehouseTableOptions,
} from './capabilities';
export { inLockOrder, refuseUngroupable } from './change-group';
export { MAX_SEED_CHUNKS, SAMPLED_PAGES_PER_CHUNK, distinctBounds, seedChunkCount, seedSamplePercent } from './seed-chunks';
export {
  ChangesPurgedError,
  EngineError,
  FAILURE_CLASS_OF_KIND,
  OwnObjectMissingError,
  PrimaryKeyRequiredError,
  SourceIncarnationChangedError,
  CaptureFailedError,
  SourceVersionsRewoundError,
  StaleDefinitionError,
  TableNotTrackedError,
  incarnationMoved,
  isEngineError,
  type DriverErrorMapper,
  type EngineErrorKind,
} from './errors';
export type { PipelineEngine, StagedRowsRewriter, WarehouseContext } from './engine';
export {
  ForeignTableError,
  claimTable,
  claimWarehouseTables,
  type OwnedTableRole,
  type OwnershipLedger,
  type TableClaim,
  type WarehouseOwnershipLedger,
  type WarehouseTablePair,
} from './table-ownership';
export { ConnectionStringError, probeOrReason, unlessUnparsable } from './connection/connection-string-error';
export type { ConnectOptions, ProbeOptions, WarehouseConnection } from './connection/connection-options';
export {
  AUTHENTICATION_FAILED_REASON,
  UNREACHABLE_REASON,
  errorChain,
  isRecord,
  isUnreachableSocketError,
  messageOf,
  socketFailureReason,
  timedOutReason,
  type FailureContext,
} from './connection/connection-failure';
export type { CaptureCheck, DatabaseAccess, DatabaseEndpoint, StagingPreparation, StagingPreparationField, StagingPreparationRequest } from './connection/database-access';
export { ADDRESS_CLASSES, addressClassOf, type AddressClass } from './connection/address-class';
export {
  QUERY_HOST_RULE,
  SOCKET_HOST_RULE,
  UNREADABLE_HOST_RULE,
  UnsafeHostError,
  dialHostOf,
  driverHostOf,
  refuseQueryHosts,
  type DialHost,
} from './connection/dial-host';
export { formatIpAddress, parseIpAddress, sameAddress, unmapped, type IpAddress } from './connection/ip-address';
export {
  DEFAULT_DIAL_POLICY,
  GuardedSocket,
  HOST_POLICY_CODE,
  RefusedAddressError,
  dialRefusal,
  guardedConnector,
  guardedLookup,
  guardedStream,
  type DialPolicy,
} from './connection/dial-guard';
export { withinDeadline, type DeadlineOutcome } from './connection/deadline';
export { isHostName, parsePort, stripBrackets } from './connection/host-port';
export { settleProbe } from './connection/probe-settle';
export { hasScheme, parseServerUrl, type ServerUrl } from './connection/server-url';
export {
  POSTGRES_DEFAULT_PORT,
  POSTGRES_SCHEMES,
  REDSHIFT_DEFAULT_PORT,
  REDSHIFT_SCHEMES,
  UNSUPPORTED_WAREHOUSE_URL,
  warehouseDialEndpointOf,
  warehouseEndpointOf,
  warehouseEngineOf,
  type WarehouseEndpoint,
  type WarehouseEngine,
} from './connection/warehouse-url';
export { isCatalogCreationRace, sqlStateErrorKind, sqlStateOf } from './sqlstate';
export { columnMismatch, columnTypeMismatch } from './definition-mismatch';
export { redshiftServedByPostgresForTests } from './connection/redshift-on-postgres';
export { clientBoundMs, isClientQueryTimeout } from './connection/client-bound';
export {
  ColumnTypeChangeError,
  columnChangeNotes,
  columnTypeRelation,
  isLatticeType,
  isVaryingText,
  planColumnTypes,
  suspectedRenames,
  type ColumnTypeDrift,
  type ColumnTypePlan,
  type ColumnTypeRelation,
  type SuspectedRename,
  type TypeDialect,
  type TypedColumn,
} from './column-type-change';
export { WAREHOUSE_SECRETS, defineEngine, type EngineModule, type EngineRole, type WarehouseSecret } from './engine-module';
export { PORTABLE_TYPE_SAMPLES, sourceTypeTable, warehouseTypeTable, type DeclaredType, type EngineTypes, type SourceTypeMapping } from './type-table';
export { StagingProtocol } from './staging-protocol/staging-protocol';
export type { BatchRowsKind, PresentColumns, SeedRecord, StagingDialect, TransactionStep } from './staging-protocol/staging-dialect';
export { WarehouseProtocol } from './warehouse-protocol/warehouse-protocol';
export type { ControlObjectsGuard, FollowedTypes, PairTable, WarehouseDialect, WarehouseEnsured, WarehouseLayout } from './warehouse-protocol/warehouse-dialect';
export { SystemColumns, WarehouseControlTables, scdTypeChanged, setAsideName, type ColumnNames, type TableHistory } from './warehouse-protocol/warehouse-columns';
export {
  BUCKET_HEX_DIGITS,
  MAX_BUCKETS,
  ROW_DIGEST_HEX_DIGITS,
  ROWS_PER_BUCKET,
  ChecksumsUnsupportedError,
  bucketCount,
  segmentOf,
  type KeyRange,
  type Segments,
  type BucketSum,
  type ChecksumReader,
  type KeyDigest,
  type SourceChecksumSnapshot,
  type SourceChecksums,
  type TableKey,
  type WarehouseChecksums,
} from './validation/checksums';
export {
  bucketSumsSql,
  integerKeyBoundsSql,
  canonicalRowText,
  digestedFields,
  fieldTextBytesAtMost,
  rowDigestText,
  ROW_TEXT_BUDGET_BYTES,
  sourceChecksumColumns,
  changedKeysSql,
  digestsOfKeysSql,
  keyDigestsInSegmentsSql,
  segmentSumsSql,
  type ChecksumColumn,
  type ChecksumDialect,
  type ChecksumTable,
} from './validation/checksum-sql';
export {
  DEFAULT_COMPARISON_LIMITS,
  TableTooBusyError,
  compareTable,
  keyRanges,
  type ComparisonHooks,
  type ComparisonLimits,
  type ComparisonProgress,
  type DifferingKeyFound,
  type TableComparison,
} from './validation/table-comparison';
export { bucketSumsOf, checksumReader, keyDigestsOf, tableKeysOf, type ChecksumQuery, type ChecksumRow } from './validation/checksum-rows';
export { STANDARD_CHECKSUM_SQL, TIMESTAMP_TEXT_FORMAT, floatCanonicalText, standardCanonicalText } from './validation/standard-checksum-sql';
export {
  ConnectionGate,
  NestedConnectionAcquireError,
  PoolBusyError,
  inConnectionScope,
  type Checkout,
  type CheckoutOptions,
  type ConnectionGateOptions,
} from './connection/connection-gate';
export { GatedPgPool, withPoolConnections } from './connection/gated-pg-pool';
export { DEFAULT_POOL_WAIT_MS, poolGateOptions, type PoolSizing } from './connection/pool-sizing';
export { abandonRowStream } from './row-stream';
export { DEFAULT_REBUILD_THRESHOLD, type RebuildThreshold } from './rebuild-threshold';

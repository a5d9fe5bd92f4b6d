export { createRedshiftWarehouse, type RedshiftWarehouseOptions } from './redshift-warehouse';
export { s3CopyLoader, stdinCopyLoader, type StagedFileLoader } from './file-loaders';
export { redshiftColumnType, type RedshiftColumnType } from './redshift-types';
export { REDSHIFT_NULL_MARKER } from './null-marker';
export type { CopyAuthorization } from './redshift-copy';
export { RedshiftFileRows, RedshiftValueError, fileRowsLayout } from './redshift-file-rows';
export { REDSHIFT_CHECKSUM_DIALECT } from './redshift-checksums';
export { isSerializationConflict } from './redshift-conflicts';

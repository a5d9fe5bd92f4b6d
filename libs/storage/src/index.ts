export {
  BatchFileWriter,
  DEFAULT_GZIP_LEVEL,
  DEFAULT_PART_BYTES,
  MANIFEST_FILE_NAME,
  partFileName,
  type BatchFileWriterOptions,
} from './batch-file-writer';
export { PROBE_KEY_PREFIX, probeBucket } from './bucket-probe';
export { S3_UNREACHABLE_REASON } from './s3-failure-reason';
export { deleteExpiredFiles } from './file-retention';
export { batchKeyPrefix, replicationPrefix } from './key-prefix';
export type { RedshiftManifest } from './redshift-manifest';
export { S3TargetError, createS3Client } from './s3-client';
export type { BucketTarget, S3Settings } from './s3-settings';
export { S3StagedFileReader } from './staged-file-reader';
export { tapChunks } from './tap-chunks';
export { RewritingFileWriter } from './rewriting-writer';

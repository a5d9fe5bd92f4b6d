export { PROBE_KEY_PREFIX, probeBucket } from './bucket-probe';
export { replicationPrefix } from './key-prefix';
export { S3TargetError, createS3Client } from './s3-client';
export type { BucketTarget, S3Settings } from './s3-settings';

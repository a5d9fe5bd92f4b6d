export {
  BatchFileWriter,
  DEFAULT_GZIP_LEVEL,
  DEFAULT_PART_BYTES,
  MANIFEST_FILE_NAME,
  partFileName,
  type BatchFileWriterOptions,
} from './batch-file-writer';
export {
  AssumedRoleCredentials,
  DEFAULT_REFRESH_MARGIN_MS,
  DEFAULT_ROLE_SESSION_SECONDS,
  RoleAssumptionError,
  roleSessionName,
  type AssumeRoleCall,
  type AssumeRoleInput,
  type AssumedRoleOptions,
  type RoleCredentials,
  type RoleToAssume,
} from './assumed-role';
export { PROBE_KEY_PREFIX, probeBucket } from './bucket-probe';
export { S3_UNREACHABLE_REASON } from './s3-failure-reason';
export { deleteExpiredFiles } from './file-retention';
export { batchKeyPrefix, replicationPrefix } from './key-prefix';
export type { RedshiftManifest } from './redshift-manifest';
export { createRoleSessions, roleSessionsOf, type RoleSessions } from './role-sessions';
export { roleTrustProblem } from './role-trust';
export { S3TargetError, createS3Client } from './s3-client';
export type { BucketTarget, S3Settings } from './s3-settings';
export { StsClients, trustedPrincipalOf, type StsSettings } from './sts-client';
export { S3StagedFileReader } from './staged-file-reader';
export { tapChunks } from './tap-chunks';
export { RewritingFileWriter } from './rewriting-writer';

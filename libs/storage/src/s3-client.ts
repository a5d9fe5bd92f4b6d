import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { RoleToAssume } from './assumed-role';
import { roleSessionsOf, type RoleSessions } from './role-sessions';
import { regionOf } from './s3-region';
import { DEFAULT_S3_TIMEOUTS, type BucketTarget, type S3Settings } from './s3-settings';

export { DEFAULT_S3_REGION, regionOf } from './s3-region';

/** Thrown when a target lacks what its access type needs; the message names fields, never values. */
export class S3TargetError extends Error {
  override readonly name = 'S3TargetError';
}

/**
 * S3 client for a replication's bucket. AccessType=AccessKey signs with the request's keys; IAMRole with
 * temporary credentials of the customer's role, assumed with the replication's ExternalId (the service's own
 * identity only asks STS for them).
 */
export function createS3Client(target: BucketTarget, settings: S3Settings, roles: RoleSessions = roleSessionsOf(settings)): S3Client {
  return new S3Client(s3ClientConfig(target, settings, roles));
}

export function s3ClientConfig(target: BucketTarget, settings: S3Settings, roles: RoleSessions = roleSessionsOf(settings)): S3ClientConfig {
  return {
    region: regionOf(target),
    credentials: credentialsFor(target, roles),
    requestHandler: {
      connectionTimeout: settings.connectTimeoutMs ?? DEFAULT_S3_TIMEOUTS.connectTimeoutMs,
      socketTimeout: settings.socketTimeoutMs ?? DEFAULT_S3_TIMEOUTS.socketTimeoutMs,
    },
    ...(settings.endpoint !== undefined && {
      endpoint: settings.endpoint,
      forcePathStyle: true,
      // S3-compatible servers do not all know the newer flexible checksums; send them only when an API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
  };
}

/** The role an IAMRole target names, with its ExternalId; throws S3TargetError when a part is missing. */
export function roleOf(target: BucketTarget): RoleToAssume {
  const { accountId, roleName, externalId } = target;
  if (!accountId || !roleName || !externalId) {
    throw new S3TargetError('AccessType=IAMRole needs AccountId, RoleName and the ExternalId the service issued');
  }
  return { accountId, roleName, externalId, region: regionOf(target) };
}

function credentialsFor(target: BucketTarget, roles: RoleSessions): NonNullable<S3ClientConfig['credentials']> {
  switch (target.accessType) {
    case 'AccessKey':
      if (!target.accessKey || !target.secretKey) {
        throw new S3TargetError('AccessType=AccessKey needs AccessKey and SecretKey');
      }
      return { accessKeyId: target.accessKey, secretAccessKey: target.secretKey };
    case 'IAMRole':
      return roles.credentials.providerFor(roleOf(target));
  }
}

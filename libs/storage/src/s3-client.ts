import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { BucketTarget, S3Settings } from './s3-settings';

export const DEFAULT_S3_REGION = 'us-east-1';

/** Thrown when a target lacks what its access type needs; the message names fields, never values. */
export class S3TargetError extends Error {
  override readonly name = 'S3TargetError';
}

/**
 * S3 client for a replication's bucket. AccessType=AccessKey signs with the request's keys; IAMRole with
 * the service's own keys when configured, else the AWS default provider chain.
 */
export function createS3Client(target: BucketTarget, settings: S3Settings): S3Client {
  return new S3Client(s3ClientConfig(target, settings));
}

export function s3ClientConfig(target: BucketTarget, settings: S3Settings): S3ClientConfig {
  const credentials = credentialsFor(target, settings);
  return {
    region: regionOf(target),
    ...(credentials !== undefined && { credentials }),
    ...(settings.endpoint !== undefined && {
      endpoint: settings.endpoint,
      forcePathStyle: true,
      // S3-compatible servers do not all know the newer flexible checksums; send them only when an API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
  };
}

export function regionOf(target: BucketTarget): string {
  const region = target.regionEndpoint.trim();
  return region === '' ? DEFAULT_S3_REGION : region;
}

function credentialsFor(target: BucketTarget, settings: S3Settings): S3ClientConfig['credentials'] {
  switch (target.accessType) {
    case 'AccessKey':
      if (!target.accessKey || !target.secretKey) {
        throw new S3TargetError('AccessType=AccessKey needs AccessKey and SecretKey');
      }
      return { accessKeyId: target.accessKey, secretAccessKey: target.secretKey };
    case 'IAMRole':
      if (settings.serviceAccessKeyId && settings.serviceSecretAccessKey) {
        return { accessKeyId: settings.serviceAccessKeyId, secretAccessKey: settings.serviceSecretAccessKey };
      }
      return undefined;
  }
}

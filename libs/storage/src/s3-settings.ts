import type { AccessType } from '@svc/contracts';

/** The service's S3 configuration (DESIGN §8). */
export interface S3Settings {
  /** S3_ENDPOINT: an S3-compatible server; when set, requests use path-style addressing. */
  endpoint?: string;
  /** The service's own credentials, used for AccessType=IAMRole; absent → the AWS default provider chain. */
  serviceAccessKeyId?: string;
  serviceSecretAccessKey?: string;
  /** Whether a missing bucket may be created. */
  allowBucketCreation: boolean;
}

/** The bucket a replication writes to (the S3 fields of the request's Warehouse group). */
export interface BucketTarget {
  accessType: AccessType;
  accessKey?: string;
  secretKey?: string;
  bucketName: string;
  bucketFolderName: string;
  regionEndpoint: string;
}

import type { AccessType } from '@svc/contracts';

/** The service's S3 configuration (DESIGN §8). */
export interface S3Settings {
  /** S3_ENDPOINT: an S3-compatible server; when set, requests use path-style addressing. */
  endpoint?: string;
  /** STS_ENDPOINT: where sts:AssumeRole is asked (a VPC endpoint, a test double); absent → STS in the bucket's region. */
  stsEndpoint?: string;
  /**
   * The service's own credentials (absent → the AWS default provider chain). For AccessType=IAMRole they only ask
   * STS for the customer's role; they never sign a request to a replication's bucket.
   */
  serviceAccessKeyId?: string;
  serviceSecretAccessKey?: string;
  /** Whether a missing bucket may be created (AccessType=AccessKey only: an IAMRole bucket is the customer's). */
  allowBucketCreation: boolean;
}

/** The bucket a replication writes to (the S3 fields of the request's Warehouse group). */
export interface BucketTarget {
  accessType: AccessType;
  accessKey?: string;
  secretKey?: string;
  accountId?: string;
  roleName?: string;
  /** Issued by the registry for IAMRole (see WarehouseConfig.externalId). */
  externalId?: string;
  bucketName: string;
  bucketFolderName: string;
  regionEndpoint: string;
}

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
  /** S3_CONNECT_TIMEOUT_SECONDS: a connection not made by then fails (and is retried). Default DEFAULT_S3_TIMEOUTS. */
  connectTimeoutMs?: number;
  /** S3_SOCKET_TIMEOUT_SECONDS: a request whose socket stays silent this long fails (and is retried). Default DEFAULT_S3_TIMEOUTS. */
  socketTimeoutMs?: number;
}

/**
 * Without them the SDK waits forever (its defaults are 0): a server that accepts and never answers held a batch, its
 * heartbeats keeping the work alive. The silence allowed is minutes, not seconds: a loader's GET is paused by
 * back-pressure while the warehouse's COPY waits.
 */
export const DEFAULT_S3_TIMEOUTS = { connectTimeoutMs: 10_000, socketTimeoutMs: 300_000 } as const;

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

import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { TestS3 } from '@svc/testing';

/** Lists a bucket of the test's S3 server through the S3 API, as a user of the service would. */
export class S3Listing {
  private readonly client: S3Client;

  constructor(
    s3: TestS3,
    private readonly bucket: string,
  ) {
    this.client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  }

  /** Every key under `prefix`, in key order (all pages). */
  async keys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ...(continuationToken !== undefined && { ContinuationToken: continuationToken }) }),
      );
      for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
      continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return keys;
  }

  close(): void {
    this.client.destroy();
  }
}

import { DeleteObjectsCommand, type S3Client } from '@aws-sdk/client-s3';

/** DeleteObjects takes at most this many keys per request. */
const MAX_KEYS_PER_REQUEST = 1000;

/** Collects keys and deletes them in requests of up to 1000; counts what was deleted. */
export class ObjectDeleter {
  deleted = 0;
  private pending: string[] = [];

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async add(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      this.pending.push(key);
      if (this.pending.length === MAX_KEYS_PER_REQUEST) await this.flush();
    }
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const keys = this.pending;
    this.pending = [];
    const response = await this.client.send(
      new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
    );
    const errors = response.Errors ?? [];
    this.deleted += keys.length - errors.length;
    const [first] = errors;
    if (first !== undefined) {
      throw new Error(`could not delete ${errors.length} of ${keys.length} objects (first: ${first.Key ?? '?'}: ${first.Code ?? 'unknown error'})`);
    }
  }
}

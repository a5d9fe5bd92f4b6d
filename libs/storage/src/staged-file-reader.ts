import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { StagedFileReader } from '@svc/engines';

/** Reads staged parts from S3, gunzipped as they stream in. */
export class S3StagedFileReader implements StagedFileReader {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  /** Resolves once the object is found; the returned chunks must be read (or their iteration ended) to free the connection. */
  async readPart(key: string): Promise<AsyncIterable<Buffer>> {
    const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const body = response.Body;
    if (!(body instanceof Readable)) throw new Error(`object ${key} has no readable body`);
    const gunzip = createGunzip();
    // A failure on either side destroys both; iterating `gunzip` then throws it.
    pipeline(body, gunzip, () => undefined);
    return bufferChunks(gunzip);
  }
}

async function* bufferChunks(stream: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const chunk of stream) yield chunk;
}

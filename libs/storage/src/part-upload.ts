import { once } from 'node:events';
import { Transform, pipeline, type TransformCallback } from 'node:stream';
import { createGzip, type Gzip } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

/**
 * One gzip object being uploaded while it is written: bytes → gzip → multipart Upload. Memory stays
 * bounded by the Upload's queue (queueSize × partSize) because a write waits while gzip's buffer is full.
 * Writes must not overlap (await each).
 */
export class PartUpload {
  /** Uncompressed bytes written so far. */
  bytes = 0;
  private compressedBytes = 0;
  private readonly gzip: Gzip;
  private readonly upload: Upload;
  private readonly uploaded: Promise<void>;
  private failure: { error: unknown } | undefined;

  constructor(
    client: S3Client,
    bucket: string,
    readonly key: string,
    gzipLevel: number,
  ) {
    this.gzip = createGzip({ level: gzipLevel });
    const counter = new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
        this.compressedBytes += chunk.length;
        done(null, chunk);
      },
    });
    // A failure anywhere destroys both streams; it is reported through the upload's result.
    pipeline(this.gzip, counter, () => undefined);
    this.upload = new Upload({ client, params: { Bucket: bucket, Key: key, Body: counter, ContentType: 'application/gzip' } });
    this.uploaded = this.upload.done().then(
      () => undefined,
      (error: unknown) => {
        this.fail(error);
        throw error;
      },
    );
    // Observed by close() or abort(); until then a failure must not count as unhandled.
    this.uploaded.catch(() => undefined);
  }

  async write(bytes: Buffer): Promise<void> {
    if (this.failure) throw this.failure.error;
    this.bytes += bytes.length;
    // once() rejects when the stream errors instead, which is how a failed upload stops a waiting write.
    if (!this.gzip.write(bytes)) await once(this.gzip, 'drain');
  }

  /** Ends the object and waits until it is stored; returns its (compressed) size. */
  async close(): Promise<number> {
    if (this.failure) throw this.failure.error;
    this.gzip.end();
    await this.uploaded;
    return this.compressedBytes;
  }

  /**
   * Stops the upload; an unfinished multipart upload is aborted. A single-request upload already under
   * way may still complete, so a caller that wants the key gone deletes it afterwards.
   */
  async abort(): Promise<void> {
    await this.upload.abort();
    this.fail(new Error(`upload of ${this.key} aborted`));
    await this.uploaded.catch(() => undefined);
  }

  private fail(error: unknown): void {
    this.failure ??= { error };
    this.gzip.destroy(error instanceof Error ? error : new Error('part upload failed'));
  }
}

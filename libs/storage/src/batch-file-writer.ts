import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { StagedFiles } from '@svc/contracts';
import { CsvRowScanner } from './csv-row-scanner';
import { ObjectDeleter } from './delete-objects';
import { PartUpload } from './part-upload';
import { redshiftManifest, type StoredPart } from './redshift-manifest';

export const DEFAULT_PART_BYTES = 64 * 1024 * 1024;
/** Speed over size: the files live for RetentionDays and are read once or twice. */
export const DEFAULT_GZIP_LEVEL = 1;
export const MANIFEST_FILE_NAME = 'manifest.json';

export interface BatchFileWriterOptions {
  /** A part ends at the first row end after this many uncompressed bytes. */
  partBytes?: number;
  gzipLevel?: number;
}

/** `part-00000.csv.gz`, `part-00001.csv.gz`, … */
export function partFileName(index: number): string {
  return `part-${String(index).padStart(5, '0')}.csv.gz`;
}

/**
 * Writes one batch's rows as header-less gzip CSV parts plus a Redshift manifest under `keyPrefix`. A part
 * rolls at the first CSV row boundary after `partBytes` uncompressed bytes, so every part holds whole rows.
 * An empty batch still yields one (empty) part. Calls must not overlap: await each write before the next.
 */
export class BatchFileWriter {
  private readonly prefix: string;
  private readonly partBytes: number;
  private readonly gzipLevel: number;
  private readonly scanner = new CsvRowScanner();
  private readonly stored: StoredPart[] = [];
  private current: PartUpload | undefined;
  private state: 'writing' | 'finished' | 'aborted' = 'writing';

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    keyPrefix: string,
    options: BatchFileWriterOptions = {},
  ) {
    this.prefix = keyPrefix === '' || keyPrefix.endsWith('/') ? keyPrefix : `${keyPrefix}/`;
    this.partBytes = options.partBytes ?? DEFAULT_PART_BYTES;
    this.gzipLevel = options.gzipLevel ?? DEFAULT_GZIP_LEVEL;
    if (!Number.isInteger(this.partBytes) || this.partBytes < 1) throw new RangeError('partBytes must be a positive integer');
    if (!Number.isInteger(this.gzipLevel) || this.gzipLevel < 0 || this.gzipLevel > 9) throw new RangeError('gzipLevel must be 0..9');
  }

  async write(chunk: Buffer): Promise<void> {
    this.expectWriting();
    let rest = chunk;
    while (rest.length > 0) {
      const part = this.current ?? this.openPart();
      if (part.bytes < this.partBytes) {
        const piece = rest.subarray(0, this.partBytes - part.bytes);
        this.scanner.pass(piece);
        await part.write(piece);
        rest = rest.subarray(piece.length);
      } else if (this.scanner.atRowBoundary) {
        await this.closePart();
      } else {
        const rowEnd = this.scanner.passToRowEnd(rest);
        const piece = rowEnd === -1 ? rest : rest.subarray(0, rowEnd);
        await part.write(piece);
        rest = rest.subarray(piece.length);
        if (rowEnd !== -1) await this.closePart();
      }
    }
  }

  /** Stores the last part and the manifest. */
  async finish(): Promise<StagedFiles> {
    this.expectWriting();
    if (this.current === undefined && this.stored.length === 0) this.openPart();
    if (this.current !== undefined) await this.closePart();
    const manifest = JSON.stringify(redshiftManifest(this.bucket, this.stored));
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.manifestKey, Body: manifest, ContentType: 'application/json' }));
    this.state = 'finished';
    return { bucket: this.bucket, manifestKey: this.manifestKey, partKeys: this.stored.map((part) => part.key) };
  }

  /**
   * Stops writing and deletes the parts written so far, so no half batch stays behind. Rejects when the
   * clean-up failed (the caller's original error is still the one to report).
   */
  async abort(): Promise<void> {
    if (this.state === 'aborted') return;
    this.state = 'aborted';
    // The manifest too: a finish() that failed may have stored it all the same. Deleting a missing key succeeds.
    const keys = [...this.stored.map((part) => part.key), this.manifestKey];
    if (this.current !== undefined) {
      await this.current.abort();
      keys.push(this.current.key);
      this.current = undefined;
    }
    const deleter = new ObjectDeleter(this.client, this.bucket);
    await deleter.add(keys);
    await deleter.flush();
  }

  private get manifestKey(): string {
    return `${this.prefix}${MANIFEST_FILE_NAME}`;
  }

  private openPart(): PartUpload {
    const key = `${this.prefix}${partFileName(this.stored.length)}`;
    this.current = new PartUpload(this.client, this.bucket, key, this.gzipLevel);
    return this.current;
  }

  private async closePart(): Promise<void> {
    const part = this.current;
    if (part === undefined) return;
    const contentLength = await part.close();
    this.stored.push({ key: part.key, contentLength });
    this.current = undefined;
  }

  private expectWriting(): void {
    if (this.state !== 'writing') throw new Error(`batch files under ${this.prefix} are already ${this.state}`);
  }
}

import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { startTestS3, type TestS3 } from '@svc/testing';
import { BatchFileWriter } from './batch-file-writer';
import { CsvRowScanner } from './csv-row-scanner';
import { batchKeyPrefix } from './key-prefix';
import type { RedshiftManifest } from './redshift-manifest';
import { createS3Client } from './s3-client';
import { S3StagedFileReader } from './staged-file-reader';

const BUCKET = 'batch-files';
const REPLICATION_ID = '6f1c2a9e-0b5d-4c3e-9a7f-2d8e4b1c0a55';

/** Rows like COPY writes them, with quoted newlines and quotes, emoji, NULLs, and one field of 1 MiB. */
function sampleRows(): string[] {
  const rows: string[] = [];
  for (let i = 0; i < 400; i++) {
    const note = i % 3 === 0 ? `"line one\nline ""two"", ${i}\n😀"` : `plain ${i}`;
    rows.push(`${i},${note},,""\n`);
    if (i === 200) rows.push(`${i}.5,"${'é😀"" \n'.repeat(150_000)}",,x\n`);
  }
  return rows;
}

async function* inChunks(bytes: Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

async function readAll(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

async function getObject(client: S3Client, key: string): Promise<Buffer> {
  const response = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from((await response.Body?.transformToByteArray()) ?? []);
}

async function keysUnder(client: S3Client, prefix: string): Promise<string[]> {
  const listing = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listing.Contents ?? []).map((object) => object.Key ?? '');
}

describe('batch files on s3rver', () => {
  let s3: TestS3;
  let client: S3Client;
  let reader: S3StagedFileReader;
  let batchNumber = 0;
  let prefix: string;

  beforeAll(async () => {
    s3 = await startTestS3({ buckets: [BUCKET] });
    client = createS3Client(
      { accessType: 'AccessKey', accessKey: s3.accessKeyId, secretKey: s3.secretAccessKey, bucketName: BUCKET, bucketFolderName: '/f/', regionEndpoint: '' },
      { endpoint: s3.endpoint, allowBucketCreation: false },
    );
    reader = new S3StagedFileReader(client, BUCKET);
  });

  afterAll(async () => {
    client.destroy();
    await s3.stop();
  });

  beforeEach(() => {
    batchNumber += 1;
    prefix = batchKeyPrefix('/f/', REPLICATION_ID, { schema: 'public', name: 'things' }, `batch-${batchNumber}`);
  });

  it('rolls parts at the first row end after partBytes, even with quoted newlines and a 1 MiB field', async () => {
    const rows = sampleRows();
    const input = Buffer.from(rows.join(''), 'utf8');
    const partBytes = 2_000;
    const writer = new BatchFileWriter(client, BUCKET, prefix, { partBytes });

    for await (const chunk of inChunks(input, [1, 7, 4096, 333, 65536])) await writer.write(chunk);
    const files = await writer.finish();

    expect(files.bucket).toBe(BUCKET);
    expect(files.manifestKey).toBe(`f/${REPLICATION_ID}/public.things/batch-${batchNumber}/manifest.json`);
    expect(files.partKeys[0]).toBe(`f/${REPLICATION_ID}/public.things/batch-${batchNumber}/part-00000.csv.gz`);
    expect(files.partKeys.length).toBeGreaterThan(5);

    const parts = await Promise.all(files.partKeys.map(async (key) => readAll(await reader.readPart(key))));
    expect(Buffer.concat(parts).equals(input)).toBe(true);

    // Each part is whole rows and stops at the first row end at or after partBytes.
    const rowLengths = rows.map((row) => Buffer.byteLength(row, 'utf8'));
    let row = 0;
    parts.forEach((part, index) => {
      let length = 0;
      while (length < partBytes && row < rowLengths.length) length += rowLengths[row++] ?? 0;
      expect({ index, length: part.length }).toEqual({ index, length });
      const scanner = new CsvRowScanner();
      scanner.pass(part);
      expect(scanner.atRowBoundary).toBe(true);
    });
    expect(row).toBe(rows.length);
    expect(parts.some((part) => part.length > 1024 * 1024)).toBe(true);
  });

  it('gunzip of all parts concatenated equals the input', async () => {
    const input = Buffer.from(sampleRows().join(''), 'utf8');
    const writer = new BatchFileWriter(client, BUCKET, prefix, { partBytes: 100_000, gzipLevel: 6 });
    for await (const chunk of inChunks(input, [10_000])) await writer.write(chunk);
    const files = await writer.finish();

    const stored = await Promise.all(files.partKeys.map((key) => getObject(client, key)));
    expect(Buffer.concat(stored.map((object) => gunzipSync(object))).equals(input)).toBe(true);
  });

  it('writes a Redshift manifest naming every part with its stored size', async () => {
    const writer = new BatchFileWriter(client, BUCKET, prefix, { partBytes: 10 });
    await writer.write(Buffer.from('1,a\n2,"b\nb"\n3,c\n'));
    const files = await writer.finish();

    const manifest = JSON.parse((await getObject(client, files.manifestKey)).toString('utf8')) as RedshiftManifest;
    const sizes = await Promise.all(
      files.partKeys.map(async (key) => (await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).ContentLength),
    );
    expect(manifest).toEqual({
      entries: files.partKeys.map((key, index) => ({ url: `s3://${BUCKET}/${key}`, mandatory: true, meta: { content_length: sizes[index] } })),
    });
    expect(files.partKeys).toHaveLength(2);
    expect((await keysUnder(client, prefix)).sort()).toEqual([...files.partKeys, files.manifestKey].sort());
  });

  it('an empty batch yields one empty part and a manifest', async () => {
    const writer = new BatchFileWriter(client, BUCKET, prefix);
    const files = await writer.finish();

    expect(files.partKeys).toEqual([`${prefix}part-00000.csv.gz`]);
    expect(await readAll(await reader.readPart(files.partKeys[0]))).toEqual(Buffer.alloc(0));
    const manifest = JSON.parse((await getObject(client, files.manifestKey)).toString('utf8')) as RedshiftManifest;
    expect(manifest.entries).toHaveLength(1);
  });

  it('streams a part larger than one multipart chunk', async () => {
    // Random base64 hardly compresses: about 12 MiB stored, so the upload goes multipart.
    const line = (): string => `${randomBytes(3000).toString('base64')}\n`;
    const writer = new BatchFileWriter(client, BUCKET, prefix);
    let written = 0;
    for (let i = 0; i < 4000; i++) {
      const chunk = Buffer.from(line());
      written += chunk.length;
      await writer.write(chunk);
    }
    const files = await writer.finish();

    expect(files.partKeys).toHaveLength(1);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: files.partKeys[0] }));
    expect(head.ContentLength).toBeGreaterThan(5 * 1024 * 1024);
    expect((await readAll(await reader.readPart(files.partKeys[0]))).length).toBe(written);
  });

  it('abort removes the parts written so far', async () => {
    const writer = new BatchFileWriter(client, BUCKET, prefix, { partBytes: 4 });
    for (let i = 0; i < 5; i++) await writer.write(Buffer.from(`${i},row\n`));
    expect((await keysUnder(client, prefix)).length).toBeGreaterThan(0);

    await writer.abort();

    expect(await keysUnder(client, prefix)).toEqual([]);
    await expect(writer.write(Buffer.from('x\n'))).rejects.toThrow(/aborted/);
    await expect(writer.finish()).rejects.toThrow(/aborted/);
  });

  it('fails a write or finish when the bucket is gone, instead of hanging', async () => {
    const writer = new BatchFileWriter(client, 'no-such-bucket', prefix, { partBytes: 4 });
    const attempt = async (): Promise<void> => {
      await writer.write(Buffer.from('1,a\n2,b\n'));
      await writer.finish();
    };
    await expect(attempt()).rejects.toThrow(/bucket/i);
    await writer.abort().catch(() => undefined);
  });

  describe('S3StagedFileReader', () => {
    it('fails for a missing part', async () => {
      await expect(reader.readPart(`${prefix}part-00009.csv.gz`)).rejects.toMatchObject({ name: 'NoSuchKey' });
    });

    it('fails while reading an object that is not gzip', async () => {
      const key = `${prefix}part-00000.csv.gz`;
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'not gzip at all' }));
      await expect(readAll(await reader.readPart(key))).rejects.toThrow(/header/);
    });

    it('can stop reading early', async () => {
      const writer = new BatchFileWriter(client, BUCKET, prefix);
      for (let i = 0; i < 200; i++) await writer.write(Buffer.from(`${randomBytes(1000).toString('hex')}\n`));
      const files = await writer.finish();
      for await (const chunk of await reader.readPart(files.partKeys[0])) {
        expect(chunk.length).toBeGreaterThan(0);
        break;
      }
      expect((await readAll(await reader.readPart(files.partKeys[0]))).length).toBe(200 * 2001);
    });
  });
});

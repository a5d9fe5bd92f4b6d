import { ListObjectsV2Command, PutObjectCommand, type S3Client, type _Object } from '@aws-sdk/client-s3';
import { TEST_S3_ACCOUNT, startTestS3, waitUntil, type TestS3 } from '@svc/testing';
import { deleteExpiredFiles } from './file-retention';
import { replicationPrefix } from './key-prefix';
import { createS3Client } from './s3-client';
import { startLegacyOpensslS3, type ChildS3 } from './testing/legacy-openssl-s3';

const BUCKET = 'retention';
const DAY_MS = 24 * 60 * 60 * 1000;
const REPLICATION_ID = '6f1c2a9e-0b5d-4c3e-9a7f-2d8e4b1c0a55';
const OTHER_REPLICATION_ID = '0d6d8a52-7f0e-4d0a-8c55-1b8c3e2f9a10';
const prefix = replicationPrefix('/f', REPLICATION_ID);

function clientFor(endpoint: string): S3Client {
  return createS3Client(
    { accessType: 'AccessKey', accessKey: TEST_S3_ACCOUNT.accessKeyId, secretKey: TEST_S3_ACCOUNT.secretAccessKey, bucketName: BUCKET, bucketFolderName: '/f', regionEndpoint: '' },
    { endpoint, allowBucketCreation: false },
  );
}

async function putAll(client: S3Client, keys: readonly string[], concurrency = 25): Promise<void> {
  const queue = [...keys];
  const worker = async (): Promise<void> => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function listAll(client: S3Client, under = ''): Promise<_Object[]> {
  const objects: _Object[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: under, ContinuationToken: token }));
    objects.push(...(page.Contents ?? []));
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return objects;
}

/**
 * s3rver keeps LastModified to the second: objects written after this returns are strictly younger
 * than everything written before it.
 */
async function nextSecond(): Promise<void> {
  const second = Math.floor(Date.now() / 1000);
  await waitUntil(async () => Math.floor(Date.now() / 1000) > second, 3000, 'the next second');
}

/** The oldest LastModified among `keys`: a `now` that puts the retention cutoff exactly there keeps them all. */
async function oldestOf(client: S3Client, keys: readonly string[]): Promise<number> {
  const times = (await listAll(client)).filter((object) => keys.includes(object.Key ?? '')).map((object) => object.LastModified?.getTime() ?? NaN);
  expect(times).toHaveLength(keys.length);
  return Math.min(...times);
}

const parts = (folder: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${folder}part-${String(index).padStart(5, '0')}.csv.gz`);

describe('deleteExpiredFiles', () => {
  describe('on s3rver', () => {
    let s3: TestS3;
    let client: S3Client;

    beforeEach(async () => {
      s3 = await startTestS3({ buckets: [BUCKET] });
      client = clientFor(s3.endpoint);
    });

    afterEach(async () => {
      client.destroy();
      await s3.stop();
    });

    it('deletes whole batch folders past retention and keeps young, half-young, foreign and loose objects', async () => {
      const expired = [`${prefix}public.a/b1/part-00000.csv.gz`, `${prefix}public.a/b1/manifest.json`, `${prefix}sales.b/b1/part-00000.csv.gz`];
      const oldButKept = [
        `${prefix}public.a/b2/part-00000.csv.gz`, // its manifest is young
        `${prefix}notes.txt`, // not in a batch folder
        `${prefix}public.a/loose.txt`,
        `f/${OTHER_REPLICATION_ID}/public.a/b1/part-00000.csv.gz`, // another replication
      ];
      await putAll(client, [...expired, ...oldButKept]);
      await nextSecond();
      const young = [`${prefix}public.a/b2/manifest.json`, `${prefix}public.a/b3/part-00000.csv.gz`];
      await putAll(client, young);
      const retentionDays = 3;
      const now = new Date((await oldestOf(client, young)) + retentionDays * DAY_MS);

      expect(await deleteExpiredFiles(client, BUCKET, prefix, retentionDays, now)).toBe(expired.length);

      const remaining = (await listAll(client)).map((object) => object.Key).sort();
      expect(remaining).toEqual([...oldButKept, ...young].sort());
    });

    it('deletes nothing while the files are within retention', async () => {
      await putAll(client, parts('public.a/b1/', 3));
      expect(await deleteExpiredFiles(client, BUCKET, prefix, 1)).toBe(0);
      expect(await deleteExpiredFiles(client, BUCKET, prefix, 1, new Date(Date.now() + 0.5 * DAY_MS))).toBe(0);
      expect(await deleteExpiredFiles(client, BUCKET, prefix, 1, new Date(Date.now() + 2 * DAY_MS))).toBe(3);
      expect(await listAll(client)).toEqual([]);
    });

    it('refuses a negative retention', async () => {
      await expect(deleteExpiredFiles(client, BUCKET, prefix, -1)).rejects.toThrow(RangeError);
    });
  });

  describe('with paged listings (s3rver in a child process with --openssl-legacy-provider)', () => {
    let s3: ChildS3;
    let client: S3Client;

    beforeAll(async () => {
      s3 = await startLegacyOpensslS3(BUCKET);
      client = clientFor(s3.endpoint);
    });

    afterAll(async () => {
      client.destroy();
      await s3.stop();
    });

    it('pages through more than 1000 objects and deletes in batches of 1000, keeping a young folder that spans pages', async () => {
      const expired = [...parts('public.big/b0/', 600), ...parts('public.big/b2/', 600)];
      const spanning = parts('public.big/b1/', 600);
      await putAll(client, [...expired, ...spanning]);
      await nextSecond();
      const young = [`${prefix}public.big/b1/manifest.json`, ...parts('public.big/b3/', 5)];
      await putAll(client, young);
      // In key order b0 fills keys 1-600, b1 (kept: its manifest is young) 601-1201 across the first page
      // boundary, b2 1202-1801 across the second.
      expect((await listAll(client)).length).toBe(1806);

      const now = new Date((await oldestOf(client, young)) + 7 * DAY_MS);
      expect(await deleteExpiredFiles(client, BUCKET, prefix, 7, now)).toBe(1200);

      const remaining = (await listAll(client)).map((object) => object.Key).sort();
      expect(remaining).toEqual([...spanning, ...young].sort());
      // 1,806 writes, three listings and two deletes on s3rver's files: about 15 s alone here, over 60 s beside two other suites.
    }, 180_000);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { AWS4_SCHEME, signRequest } from '@svc/signing';
import { startTestS3 } from '../test-s3';
import { rawRequest } from './raw-http';
import type { S3Account } from './s3-signature-check';
import { startSignedS3rver } from './signed-s3rver';

/**
 * Like S3, the embedded server (npm start) and the tests' server refuse what is not signed with the account's
 * secret (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html) and answer S3's
 * error XML (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 */
const BUCKET = 'signed-bucket';

interface Server {
  endpoint: string;
  /** s3rver pages listings only with the legacy OpenSSL provider, which only its child process has. */
  pagesListings: boolean;
  account: S3Account;
  stop(): Promise<void>;
}

/** Headers of a request signed for `account` (payload hash of `signedBody`), at `now`. */
function signed(endpoint: string, account: S3Account, method: string, path: string, signedBody: string, now = new Date()): Record<string, string> {
  const { host } = new URL(endpoint);
  const headers = signRequest(
    { ...AWS4_SCHEME, normalizePath: false },
    { method, path, headers: { host }, body: signedBody },
    { accessKeyId: account.accessKeyId, secretKey: account.secretAccessKey },
    { region: 'us-east-1', service: 's3', now },
  );
  delete headers['host'];
  return headers;
}

function client(server: Server, account: S3Account = server.account): S3Client {
  return new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: account,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

async function errorCode(operation: Promise<unknown>): Promise<string> {
  try {
    await operation;
  } catch (error) {
    if (error instanceof S3ServiceException) return error.name;
    throw error;
  }
  return 'no error';
}

const servers: [string, () => Promise<Server>][] = [
  [
    "npm start's embedded server (s3rver in a child process behind the front)",
    async () => {
      const directory = mkdtempSync(join(tmpdir(), 'svc-signed-s3-'));
      const account = { accessKeyId: 'SVCLOCALSPEC', secretAccessKey: randomBytes(30).toString('base64url') };
      const server = await startSignedS3rver({ port: 0, directory, account, buckets: [BUCKET] });
      return {
        endpoint: server.endpoint,
        pagesListings: true,
        account,
        stop: () => server.close().finally(() => rmSync(directory, { recursive: true, force: true })),
      };
    },
  ],
  [
    "the tests' server (startTestS3)",
    async () => {
      const s3 = await startTestS3({ buckets: [BUCKET] });
      return { endpoint: s3.endpoint, pagesListings: false, account: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }, stop: () => s3.stop() };
    },
  ],
];

describe.each(servers)('%s verifies AWS Signature Version 4', (_name, start) => {
  let server: Server;

  beforeAll(async () => {
    server = await start();
    const s3 = client(server);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'secret/rows.csv', Body: 'id,name\n1,lovelace\n' }));
    s3.destroy();
  });
  afterAll(() => server.stop());

  it('refuses anonymous GET, PUT and LIST with 403 AccessDenied and changes nothing', async () => {
    const get = await rawRequest(server.endpoint, 'GET', `/${BUCKET}/secret/rows.csv`);
    const put = await rawRequest(server.endpoint, 'PUT', `/${BUCKET}/secret/rows.csv`, { 'content-type': 'text/csv' }, 'id,name\n666,injected\n');
    const list = await rawRequest(server.endpoint, 'GET', `/${BUCKET}?list-type=2`);
    for (const answer of [get, put, list]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('<Code>AccessDenied</Code>');
      expect(answer.body).not.toContain('lovelace');
    }
    const s3 = client(server);
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'secret/rows.csv' }));
    expect(await object.Body?.transformToString()).toBe('id,name\n1,lovelace\n');
    s3.destroy();
  });

  it('refuses a wrong secret (SignatureDoesNotMatch) and an unknown key id (InvalidAccessKeyId)', async () => {
    const wrongSecret = client(server, { accessKeyId: server.account.accessKeyId, secretAccessKey: `${server.account.secretAccessKey}x` });
    const unknownKey = client(server, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
    expect(await errorCode(wrongSecret.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'secret/rows.csv' })))).toBe('SignatureDoesNotMatch');
    expect(await errorCode(wrongSecret.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'secret/rows.csv', Body: 'x' })))).toBe('SignatureDoesNotMatch');
    expect(await errorCode(wrongSecret.send(new ListObjectsV2Command({ Bucket: BUCKET })))).toBe('SignatureDoesNotMatch');
    expect(await errorCode(unknownKey.send(new ListObjectsV2Command({ Bucket: BUCKET })))).toBe('InvalidAccessKeyId');
    wrongSecret.destroy();
    unknownKey.destroy();
  });

  it('refuses a request signed more than 15 minutes ago (RequestTimeTooSkewed)', async () => {
    const path = `/${BUCKET}/secret/rows.csv`;
    const stale = await rawRequest(server.endpoint, 'GET', path, signed(server.endpoint, server.account, 'GET', path, '', new Date(Date.now() - 16 * 60 * 1000)));
    expect(stale.status).toBe(403);
    expect(stale.body).toContain('<Code>RequestTimeTooSkewed</Code>');
    const fresh = await rawRequest(server.endpoint, 'GET', path, signed(server.endpoint, server.account, 'GET', path, ''));
    expect(fresh).toEqual({ status: 200, body: 'id,name\n1,lovelace\n' });
  });

  it('refuses a signed request whose body is not the one signed (XAmzContentSHA256Mismatch), and stores nothing of it', async () => {
    const path = `/${BUCKET}/secret/rows.csv`;
    const replayed = await rawRequest(server.endpoint, 'PUT', path, signed(server.endpoint, server.account, 'PUT', path, 'id,name\n2,bob\n'), 'id,name\n666,injected\n');
    expect(replayed.status).toBe(400);
    expect(replayed.body).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    const read = await rawRequest(server.endpoint, 'GET', path, signed(server.endpoint, server.account, 'GET', path, ''));
    expect(read.body).toBe('id,name\n1,lovelace\n');
  });

  it('verifies what the SDK signs for keys and query values with spaces, reserved and non-ASCII characters', async () => {
    const s3 = client(server);
    const keys = ['odd/a b+c=d(1)!*.csv', 'odd/ünïcødé 😀/x~y_z.gz', "odd/semi;colon,comma'quote@at$.csv"];
    for (const key of keys) await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));
    for (const key of keys) {
      const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      expect(await object.Body?.transformToString()).toBe(key);
    }
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'odd/ünïcødé 😀/', Delimiter: '/' }));
    expect((listed.Contents ?? []).map((entry) => entry.Key)).toEqual([keys[1]]);
    s3.destroy();
  });

  it('serves a correctly signing SDK client: a multipart upload (lib-storage) and a listing, paged where s3rver can', async () => {
    const s3 = client(server);
    const body = randomBytes(6 * 1024 * 1024 + 123);
    const upload = new Upload({ client: s3, params: { Bucket: BUCKET, Key: 'batches/big.bin', Body: body }, partSize: 5 * 1024 * 1024 });
    let parts = 0;
    upload.on('httpUploadProgress', () => (parts += 1));
    await upload.done();
    expect(parts).toBeGreaterThanOrEqual(2);
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'batches/big.bin' }));
    expect(Buffer.from((await object.Body?.transformToByteArray()) ?? []).equals(body)).toBe(true);

    for (const key of ['pages/a', 'pages/b', 'pages/c']) await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'pages/', MaxKeys: server.pagesListings ? 1 : 1000, ...(token !== undefined && { ContinuationToken: token }) }),
      );
      if (server.pagesListings) expect(page.KeyCount).toBe(1);
      keys.push(...(page.Contents ?? []).map((entry) => entry.Key ?? ''));
      token = page.NextContinuationToken;
    } while (token !== undefined);
    expect(keys).toEqual(['pages/a', 'pages/b', 'pages/c']);
    s3.destroy();
  }, 30000);
});

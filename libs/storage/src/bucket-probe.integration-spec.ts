import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { freePort, startSilentServer, startTestS3, type TestS3 } from '@svc/testing';
import { probeBucket } from './bucket-probe';
import { createS3Client } from './s3-client';
import { S3_UNREACHABLE_REASON } from './s3-failure-reason';
import type { BucketTarget, S3Settings } from './s3-settings';

const TIMEOUT_MS = 5000;
const EXISTING_BUCKET = 'probe-existing';

describe('probeBucket against s3rver', () => {
  let s3: TestS3;
  let settings: S3Settings;

  const target = (overrides: Partial<BucketTarget> = {}): BucketTarget => ({
    accessType: 'AccessKey',
    accessKey: s3.accessKeyId,
    secretKey: s3.secretAccessKey,
    bucketName: EXISTING_BUCKET,
    bucketFolderName: '/replication/data/',
    regionEndpoint: 'us-east-1',
    ...overrides,
  });

  async function bucketExists(bucketName: string): Promise<boolean> {
    const client = createS3Client(target({ bucketName }), settings);
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucketName }));
      return true;
    } catch (error) {
      if ((error as { name?: string }).name === 'NotFound') return false;
      throw error;
    } finally {
      client.destroy();
    }
  }

  beforeEach(async () => {
    s3 = await startTestS3({ buckets: [EXISTING_BUCKET] });
    settings = { endpoint: s3.endpoint, allowBucketCreation: false };
  });

  afterEach(async () => {
    await s3.stop();
  });

  it('writes then deletes a probe object under the folder of an existing bucket', async () => {
    expect(await probeBucket(target(), settings, TIMEOUT_MS)).toBeNull();

    expect(s3.events.map((event) => event.name)).toEqual(['ObjectCreated:Put', 'ObjectRemoved:Delete']);
    const [written, deleted] = s3.events;
    expect(written?.bucket).toBe(EXISTING_BUCKET);
    expect(written?.key).toMatch(/^replication\/data\/\.svc-probe-[0-9a-f-]{36}$/);
    expect(deleted?.key).toBe(written?.key);
  });

  it('creates a missing bucket when creation is allowed', async () => {
    const bucketName = 'probe-created';
    expect(await bucketExists(bucketName)).toBe(false);

    expect(await probeBucket(target({ bucketName, regionEndpoint: 'us-west-2' }), { ...settings, allowBucketCreation: true }, TIMEOUT_MS)).toBeNull();

    expect(await bucketExists(bucketName)).toBe(true);
    expect(s3.events.map((event) => event.name)).toEqual(['ObjectCreated:Put', 'ObjectRemoved:Delete']);
  });

  it('reports a missing bucket when creation is not allowed, and leaves it missing', async () => {
    const bucketName = 'probe-missing';
    expect(await probeBucket(target({ bucketName }), settings, TIMEOUT_MS)).toBe('bucket does not exist');
    expect(await bucketExists(bucketName)).toBe(false);
  });

  it('reports an invalid bucket name that creation would need', async () => {
    expect(await probeBucket(target({ bucketName: 'No_Such' }), { ...settings, allowBucketCreation: true }, TIMEOUT_MS)).toBe('invalid bucket name');
  });

  it('signs IAMRole calls with the service credentials', async () => {
    const iam = target({ accessType: 'IAMRole', accessKey: undefined, secretKey: undefined });
    const withServiceKeys = { ...settings, serviceAccessKeyId: s3.accessKeyId, serviceSecretAccessKey: s3.secretAccessKey };
    expect(await probeBucket(iam, withServiceKeys, TIMEOUT_MS)).toBeNull();
    expect(await probeBucket(iam, { ...settings, serviceAccessKeyId: 'SOMEONE-ELSE', serviceSecretAccessKey: 'x' }, TIMEOUT_MS)).toBe(
      'access denied: unknown access key',
    );
  });

  // s3rver knows one account (S3RVER/S3RVER). It rejects any other access key id (InvalidAccessKeyId),
  // but it does not verify SigV4 signatures at all, so a wrong secret for S3RVER is accepted;
  // allowMismatchedSignatures only affects the legacy V2 scheme, which the SDK v3 never uses.
  it('documents s3rver credential handling: unknown key refused, secret not verified', async () => {
    expect(await probeBucket(target({ accessKey: 'AKIAUNKNOWN', secretKey: 'whatever' }), settings, TIMEOUT_MS)).toBe(
      'access denied: unknown access key',
    );
    expect(await probeBucket(target({ secretKey: 'not-the-secret' }), settings, TIMEOUT_MS)).toBeNull();
    expect(s3.events.filter((event) => event.name === 'ObjectCreated:Put')).toHaveLength(1);
  });

  it('reports an endpoint that refuses connections', async () => {
    const down = `http://127.0.0.1:${await freePort()}`;
    expect(await probeBucket(target(), { ...settings, endpoint: down }, TIMEOUT_MS)).toBe(S3_UNREACHABLE_REASON);
  });

  it('gives up at the deadline when the endpoint never answers', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const reason = await probeBucket(target(), { ...settings, endpoint: `http://127.0.0.1:${silent.port}` }, 700);
      expect(reason).toBe(S3_UNREACHABLE_REASON);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await silent.stop();
    }
  });
});

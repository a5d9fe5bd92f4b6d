import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { freePort, startSilentServer, startTestS3, startTestSts, type TestS3, type TestSts } from '@svc/testing';
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

  describe('AccessType=IAMRole', () => {
    // The STS double answers as https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html says; its
    // sessions carry s3rver's one key pair (with a session token), since s3rver refuses every other key id.
    let sts: TestSts;
    const roleArn = 'arn:aws:iam::123456789012:role/CustomerBucketRole';
    const iam = (overrides: Partial<BucketTarget> = {}): BucketTarget =>
      target({ accessType: 'IAMRole', accessKey: undefined, secretKey: undefined, accountId: '123456789012', roleName: 'CustomerBucketRole', externalId: 'svc-issued-id', ...overrides });

    beforeEach(async () => {
      sts = await startTestSts({ issuedKeys: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
      sts.trustRole({ roleArn, principalAccessKeyId: 'SERVICE-OWN-KEY', externalId: 'svc-issued-id' });
      settings = { ...settings, stsEndpoint: sts.endpoint, serviceAccessKeyId: 'SERVICE-OWN-KEY', serviceSecretAccessKey: 'service-own-secret' };
    });

    afterEach(async () => {
      await sts.stop();
    });

    it('writes with the assumed role and asks STS with the service identity', async () => {
      expect(await probeBucket(iam(), settings, TIMEOUT_MS)).toBeNull();
      expect(s3.events.map((event) => event.name)).toEqual(['ObjectCreated:Put', 'ObjectRemoved:Delete']);
      expect(sts.calls).toMatchObject([{ action: 'AssumeRole', callerAccessKeyId: 'SERVICE-OWN-KEY', roleArn, externalId: 'svc-issued-id' }]);
    });

    it("never creates a missing bucket: it is the customer's", async () => {
      const bucketName = 'probe-iam-missing';
      expect(await probeBucket(iam({ bucketName }), { ...settings, allowBucketCreation: true }, TIMEOUT_MS)).toBe('bucket does not exist');
      expect(await bucketExists(bucketName)).toBe(false);
    });

    it('reports a role whose trust policy does not name the ExternalId, and writes nothing', async () => {
      expect(await probeBucket(iam({ externalId: 'svc-other-id' }), settings, TIMEOUT_MS)).toBe(`cannot assume ${roleArn}: access denied`);
      expect(s3.events).toEqual([]);
    });
  });

  // Like S3, the test server verifies SigV4 (s3rver alone checked the key id but not the signature): an unknown key
  // and a wrong secret for the known key are both refused, and neither writes anything.
  it('is refused for an unknown access key and for a wrong secret', async () => {
    expect(await probeBucket(target({ accessKey: 'AKIAUNKNOWN', secretKey: 'whatever' }), settings, TIMEOUT_MS)).toBe(
      'access denied: unknown access key',
    );
    expect(await probeBucket(target({ secretKey: 'not-the-secret' }), settings, TIMEOUT_MS)).toBe('access denied: secret key does not match');
    expect(s3.events).toEqual([]);
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

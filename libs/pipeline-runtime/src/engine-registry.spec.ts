import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Settings } from '@svc/storage';
import { sampleReplicationConfig, startRecordingS3, startTestSts, type RecordingS3, type TestSts } from '@svc/testing';
import { EngineRegistry } from './engine-registry';
import { classifyFailure } from './failure-classifier';

// The STS double behaves as https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html documents.
describe("EngineRegistry.bucket: the workers' S3 client", () => {
  const SERVICE_KEY_ID = 'AKIAWORKERSERVICEKEY';
  const iamRole = { accessType: 'IAMRole' as const, accessKey: undefined, secretKey: undefined, accountId: '123456789012', roleName: 'CustomerRole', externalId: 'svc-issued-for-owner' };
  let sts: TestSts;
  let s3: RecordingS3;
  let settings: S3Settings;
  let engines: EngineRegistry;

  beforeEach(async () => {
    [sts, s3] = await Promise.all([startTestSts(), startRecordingS3()]);
    sts.trustRole({ roleArn: 'arn:aws:iam::123456789012:role/CustomerRole', principalAccessKeyId: SERVICE_KEY_ID, externalId: 'svc-issued-for-owner' });
    sts.trustRole({ roleArn: 'arn:aws:iam::123456789012:role/NewRole', principalAccessKeyId: SERVICE_KEY_ID, externalId: 'svc-issued-for-new-role' });
    settings = { endpoint: s3.endpoint, stsEndpoint: sts.endpoint, serviceAccessKeyId: SERVICE_KEY_ID, serviceSecretAccessKey: 'worker-service-secret', allowBucketCreation: false };
    engines = new EngineRegistry();
  });

  afterEach(async () => {
    await engines.closeAll();
    await Promise.all([sts.stop(), s3.stop()]);
  });

  it("writes an IAMRole replication's batch files as the customer's role, never with the service's keys", async () => {
    const config = sampleReplicationConfig({ warehouse: iamRole });
    await engines.bucket(config, settings).send(new PutObjectCommand({ Bucket: 'bucket', Key: 'f/part-1.csv.gz', Body: 'x' }));

    expect(sts.calls).toMatchObject([{ action: 'AssumeRole', callerAccessKeyId: SERVICE_KEY_ID, externalId: 'svc-issued-for-owner' }]);
    expect(s3.requests).toEqual([
      expect.objectContaining({ method: 'PUT', accessKeyId: sts.issued[0]?.accessKeyId, securityToken: sts.issued[0]?.sessionToken }),
    ]);
    expect(s3.requests[0]?.accessKeyId).not.toBe(SERVICE_KEY_ID);
  });

  it("stops the replication, saying why, once the role no longer trusts the replication's ExternalId", async () => {
    const config = sampleReplicationConfig({ warehouse: { ...iamRole, externalId: 'svc-not-trusted' } });
    const failure: unknown = await engines
      .bucket(config, settings)
      .send(new PutObjectCommand({ Bucket: 'bucket', Key: 'f/part-1.csv.gz', Body: 'x' }))
      .catch((error: unknown) => error);
    expect(classifyFailure(failure, { endpoint: 'Warehouse' })).toEqual({ retryable: false, scope: 'replication', reason: 'cannot assume arn:aws:iam::123456789012:role/CustomerRole: access denied' });
    expect(s3.requests).toEqual([]);
  });

  it('opens a new client when an Alter names another role, and keeps one client while the role stays', async () => {
    const before = sampleReplicationConfig({ warehouse: iamRole });
    const client = engines.bucket(before, settings);
    expect(engines.bucket(sampleReplicationConfig({ warehouse: iamRole, parallelTablesLimit: 3 }), settings)).toBe(client);

    const altered = sampleReplicationConfig({ warehouse: { ...iamRole, roleName: 'NewRole', externalId: 'svc-issued-for-new-role' } });
    const renamed = engines.bucket(altered, settings);
    expect(renamed).not.toBe(client);
    await renamed.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'f/part-2.csv.gz', Body: 'x' }));
    expect(sts.calls.map((call) => call.roleArn)).toEqual(['arn:aws:iam::123456789012:role/NewRole']);
  });
});

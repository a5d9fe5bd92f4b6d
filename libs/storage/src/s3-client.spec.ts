import { S3TargetError, createS3Client } from './s3-client';
import type { BucketTarget } from './s3-settings';

const accessKeyTarget: BucketTarget = {
  accessType: 'AccessKey',
  accessKey: 'AKIAREQUEST',
  secretKey: 'request-secret',
  bucketName: 'bucket',
  bucketFolderName: '/folder',
  regionEndpoint: 'us-west-2',
};

const iamTarget: BucketTarget = { accessType: 'IAMRole', bucketName: 'bucket', bucketFolderName: '', regionEndpoint: '' };

describe('createS3Client', () => {
  it('signs with the request keys for AccessKey, in the request region', async () => {
    const client = createS3Client(accessKeyTarget, { allowBucketCreation: false, serviceAccessKeyId: 'SVC', serviceSecretAccessKey: 'svc' });
    expect(await client.config.region()).toBe('us-west-2');
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'AKIAREQUEST', secretAccessKey: 'request-secret' });
    expect(client.config.forcePathStyle).toBe(false);
    client.destroy();
  });

  it('signs with the service keys for IAMRole and defaults the region', async () => {
    const client = createS3Client(iamTarget, { allowBucketCreation: false, serviceAccessKeyId: 'SVC', serviceSecretAccessKey: 'svc' });
    expect(await client.config.region()).toBe('us-east-1');
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'SVC', secretAccessKey: 'svc' });
    client.destroy();
  });

  it('uses path-style addressing against S3_ENDPOINT', async () => {
    const client = createS3Client(accessKeyTarget, { allowBucketCreation: true, endpoint: 'http://127.0.0.1:4569' });
    expect(client.config.forcePathStyle).toBe(true);
    const endpoint = await client.config.endpoint?.();
    expect(endpoint).toMatchObject({ hostname: '127.0.0.1', port: 4569, protocol: 'http:' });
    client.destroy();
  });

  it('refuses AccessKey without keys, naming no value', () => {
    expect(() => createS3Client({ ...accessKeyTarget, secretKey: '' }, { allowBucketCreation: false })).toThrow(S3TargetError);
    expect(() => createS3Client({ ...accessKeyTarget, secretKey: '' }, { allowBucketCreation: false })).not.toThrow(/AKIAREQUEST/);
  });
});

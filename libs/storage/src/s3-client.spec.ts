import { AssumedRoleCredentials } from './assumed-role';
import { createRoleSessions } from './role-sessions';
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

const iamTarget: BucketTarget = {
  accessType: 'IAMRole',
  accountId: '123456789012',
  roleName: 'Role',
  externalId: 'svc-0123456789abcdef0123456789abcdef',
  bucketName: 'bucket',
  bucketFolderName: '',
  regionEndpoint: '',
};

describe('createS3Client', () => {
  it('signs with the request keys for AccessKey, in the request region', async () => {
    const client = createS3Client(accessKeyTarget, { allowBucketCreation: false, serviceAccessKeyId: 'SVC', serviceSecretAccessKey: 'svc' });
    expect(await client.config.region()).toBe('us-west-2');
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'AKIAREQUEST', secretAccessKey: 'request-secret' });
    expect(client.config.forcePathStyle).toBe(false);
    client.destroy();
  });

  it("asks the role's session for IAMRole, never the service keys, and defaults the region", async () => {
    const assumed = { accessKeyId: 'ASIAROLE', secretAccessKey: 'role-secret', sessionToken: 'token', expiration: new Date(Date.now() + 3600_000) };
    const asked: unknown[] = [];
    const roles = createRoleSessions({ allowBucketCreation: false });
    const client = createS3Client(iamTarget, { allowBucketCreation: false, serviceAccessKeyId: 'SVC', serviceSecretAccessKey: 'svc' }, {
      ...roles,
      credentials: new AssumedRoleCredentials(async (input) => {
        asked.push(input);
        return assumed;
      }),
    });
    expect(await client.config.region()).toBe('us-east-1');
    expect(await client.config.credentials()).toMatchObject({ accessKeyId: 'ASIAROLE', sessionToken: 'token' });
    expect(asked).toEqual([
      { roleArn: 'arn:aws:iam::123456789012:role/Role', externalId: iamTarget.externalId, roleSessionName: `svc-${iamTarget.externalId}`, durationSeconds: 3600, region: 'us-east-1' },
    ]);
    client.destroy();
    roles.sts.destroy();
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

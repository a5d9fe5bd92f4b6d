import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startRecordingS3, startTestSts, type RecordingS3, type TestSts } from '@svc/testing';
import { AssumedRoleCredentials, RoleAssumptionError, roleSessionName } from './assumed-role';
import { createRoleSessions, type RoleSessions } from './role-sessions';
import { roleTrustProblem } from './role-trust';
import { createS3Client } from './s3-client';
import type { BucketTarget, S3Settings } from './s3-settings';

// The STS double answers as https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html documents, and
// refuses a call whose ExternalId the role's trust policy does not name with AccessDenied
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html).

const SERVICE_KEY_ID = 'AKIASERVICEOWNKEY001';
const EXTERNAL_ID = 'svc-0123456789abcdef0123456789abcdef';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/ReplicationBucketRole';

const iamTarget = (overrides: Partial<BucketTarget> = {}): BucketTarget => ({
  accessType: 'IAMRole',
  accountId: '123456789012',
  roleName: 'ReplicationBucketRole',
  externalId: EXTERNAL_ID,
  bucketName: 'customer-bucket',
  bucketFolderName: '/replication',
  regionEndpoint: 'eu-west-1',
  ...overrides,
});

describe('IAMRole: S3 work runs as the assumed role', () => {
  let sts: TestSts;
  let s3: RecordingS3;
  let settings: S3Settings;
  let roles: RoleSessions;

  beforeEach(async () => {
    [sts, s3] = await Promise.all([startTestSts({ callerArn: 'arn:aws:iam::111122223333:user/replication-service' }), startRecordingS3()]);
    settings = { endpoint: s3.endpoint, stsEndpoint: sts.endpoint, serviceAccessKeyId: SERVICE_KEY_ID, serviceSecretAccessKey: 'service-own-secret', allowBucketCreation: false };
    roles = createRoleSessions(settings);
    sts.trustRole({ roleArn: ROLE_ARN, principalAccessKeyId: SERVICE_KEY_ID, externalId: EXTERNAL_ID });
  });

  afterEach(async () => {
    roles.sts.destroy();
    await Promise.all([sts.stop(), s3.stop()]);
  });

  it("signs bucket requests with the role's temporary credentials and session token, never the service's keys", async () => {
    const client = createS3Client(iamTarget(), settings, roles);
    try {
      await client.send(new PutObjectCommand({ Bucket: 'customer-bucket', Key: 'replication/a', Body: 'x' }));
      await client.send(new DeleteObjectCommand({ Bucket: 'customer-bucket', Key: 'replication/a' }));
    } finally {
      client.destroy();
    }

    const [session] = sts.issued;
    expect(sts.issued).toHaveLength(1);
    expect(s3.requests).toHaveLength(2);
    for (const request of s3.requests) {
      expect(request.accessKeyId).toBe(session?.accessKeyId);
      expect(request.accessKeyId).not.toBe(SERVICE_KEY_ID);
      expect(request.securityToken).toBe(session?.sessionToken);
      expect(request.region).toBe('eu-west-1');
    }
    // The service's own identity signed the STS call, and only that.
    expect(sts.calls).toEqual([
      {
        action: 'AssumeRole',
        callerAccessKeyId: SERVICE_KEY_ID,
        roleArn: ROLE_ARN,
        roleSessionName: `svc-${EXTERNAL_ID}`,
        externalId: EXTERNAL_ID,
        durationSeconds: 3600,
        status: 200,
      },
    ]);
  });

  it('assumes a role in China or GovCloud under its own partition', async () => {
    sts.trustRole({ roleArn: 'arn:aws-cn:iam::123456789012:role/ReplicationBucketRole', externalId: EXTERNAL_ID });
    sts.trustRole({ roleArn: 'arn:aws-us-gov:iam::123456789012:role/ReplicationBucketRole', externalId: EXTERNAL_ID });
    await roles.credentials.credentialsOf({ accountId: '123456789012', roleName: 'ReplicationBucketRole', externalId: EXTERNAL_ID, region: 'cn-north-1' });
    await roles.credentials.credentialsOf({ accountId: '123456789012', roleName: 'ReplicationBucketRole', externalId: EXTERNAL_ID, region: 'us-gov-west-1' });
    expect(sts.calls.map((call) => [call.roleArn, call.status])).toEqual([
      ['arn:aws-cn:iam::123456789012:role/ReplicationBucketRole', 200],
      ['arn:aws-us-gov:iam::123456789012:role/ReplicationBucketRole', 200],
    ]);
  });

  it('refuses to sign for an IAMRole target without the ExternalId the service issued', () => {
    expect(() => createS3Client(iamTarget({ externalId: undefined }), settings, roles)).toThrow(
      'AccessType=IAMRole needs AccountId, RoleName and the ExternalId the service issued',
    );
  });

  it('fails the S3 request with a RoleAssumptionError when the trust policy names another ExternalId; nothing reaches the bucket', async () => {
    const client = createS3Client(iamTarget({ externalId: 'svc-ffffffffffffffffffffffffffffffff' }), settings, roles);
    try {
      const failure: unknown = await client.send(new PutObjectCommand({ Bucket: 'customer-bucket', Key: 'a', Body: 'x' })).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(RoleAssumptionError);
      // STS's 403 is kept in the SDK's error shape: the workers' failure handling treats it like S3's own 403.
      expect(failure).toMatchObject({ code: 'AccessDenied', roleArn: ROLE_ARN, trustRefused: true, $metadata: { httpStatusCode: 403 } });
    } finally {
      client.destroy();
    }
    expect(s3.requests).toEqual([]);
    expect(sts.calls.map((call) => call.status)).toEqual([403]);
  });

  describe('roleTrustProblem (the probe of Create and Alter)', () => {
    it('is null when the role trusts the service with this ExternalId', async () => {
      expect(await roleTrustProblem(iamTarget(), settings, roles)).toBeNull();
    });

    it('says which principal and which ExternalId the trust policy must allow when STS refuses', async () => {
      const problem = await roleTrustProblem(iamTarget({ externalId: 'svc-ffffffffffffffffffffffffffffffff' }), settings, roles);
      expect(problem).toBe(
        `the service cannot assume ${ROLE_ARN} (STS: access denied): the role's trust policy must allow Principal ` +
          'arn:aws:iam::111122223333:user/replication-service the action sts:AssumeRole with the Condition StringEquals ' +
          'sts:ExternalId "svc-ffffffffffffffffffffffffffffffff" (the ExternalId this access key gets for this role); add it and send the request again',
      );
      expect(problem).not.toContain('service-own-secret');
    });

    it('says when STS cannot be reached, where it was asked (STS_ENDPOINT) and the ExternalId the role must trust, without any credential', async () => {
      await sts.stop();
      const target = iamTarget();
      const problem = await roleTrustProblem(target, settings, roles);
      expect(problem).toBe(
        `cannot assume ${ROLE_ARN}: cannot reach STS (refused, timed out, unknown host or TLS failed): the service asks STS at STS_ENDPOINT when that ` +
          "setting is set, else the STS of the bucket's region; check that setting and that the service reaches it. The role's trust policy must also " +
          `allow sts:ExternalId "${target.externalId ?? ''}" (this access key's for this role)`,
      );
    });
  });

  describe('session cache and renewal', () => {
    it('asks STS once per role and ExternalId while the session is valid, and again once it is near its expiry', async () => {
      let now = Date.now();
      const credentials = new AssumedRoleCredentials(roles.sts.assumeRole, { now: () => now });
      const role = { accountId: '123456789012', roleName: 'ReplicationBucketRole', externalId: EXTERNAL_ID, region: 'eu-west-1' };

      const first = await credentials.credentialsOf(role);
      const again = await Promise.all([credentials.credentialsOf(role), credentials.credentialsOf(role)]);
      expect(again.map((item) => item.accessKeyId)).toEqual([first.accessKeyId, first.accessKeyId]);
      expect(sts.calls).toHaveLength(1);

      now = first.expiration.getTime() - 5 * 60_000; // within the renewal margin
      const renewed = await credentials.credentialsOf(role);
      expect(sts.calls).toHaveLength(2);
      expect(renewed.accessKeyId).not.toBe(first.accessKeyId);
      expect(renewed.sessionToken).not.toBe(first.sessionToken);
    });

    it('keeps a still valid session while STS cannot renew it, and fails once it has expired', async () => {
      let now = Date.now();
      const credentials = new AssumedRoleCredentials(roles.sts.assumeRole, { now: () => now });
      const role = { accountId: '123456789012', roleName: 'ReplicationBucketRole', externalId: EXTERNAL_ID, region: 'eu-west-1' };
      const first = await credentials.credentialsOf(role);
      await sts.stop();

      now = first.expiration.getTime() - 5 * 60_000;
      expect((await credentials.credentialsOf(role)).accessKeyId).toBe(first.accessKeyId);
      now = first.expiration.getTime() - 30_000;
      await expect(credentials.credentialsOf(role)).rejects.toMatchObject({ name: 'RoleAssumptionError', reason: 'cannot reach STS (refused, timed out, unknown host or TLS failed)' });
    });

    it('keeps no failed call: a trust policy fixed afterwards is used at once', async () => {
      const role = { accountId: '123456789012', roleName: 'LaterTrusted', externalId: EXTERNAL_ID, region: 'eu-west-1' };
      await expect(roles.credentials.credentialsOf(role)).rejects.toBeInstanceOf(RoleAssumptionError);
      sts.trustRole({ roleArn: 'arn:aws:iam::123456789012:role/LaterTrusted', externalId: EXTERNAL_ID });
      const credentials = await roles.credentials.credentialsOf(role);
      expect(credentials.sessionToken).toBe(sts.issued[0]?.sessionToken);
    });

    describe('a long-lived S3 client', () => {
      // Only the clock is faked: the SDK decides from Date.now() when its credentials need renewing.
      beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'] }));
      afterEach(() => jest.useRealTimers());

      it('keeps its session for most of the hour and renews it before it expires', async () => {
        const start = Date.now();
        const client = createS3Client(iamTarget(), settings, roles);
        try {
          await client.send(new PutObjectCommand({ Bucket: 'customer-bucket', Key: 'a', Body: 'x' }));
          jest.setSystemTime(start + 30 * 60_000);
          await client.send(new PutObjectCommand({ Bucket: 'customer-bucket', Key: 'b', Body: 'x' }));
          jest.setSystemTime(start + 57 * 60_000);
          await client.send(new PutObjectCommand({ Bucket: 'customer-bucket', Key: 'c', Body: 'x' }));
        } finally {
          client.destroy();
        }
        const [first, second] = sts.issued;
        expect(sts.issued).toHaveLength(2);
        expect(s3.requests.map((request) => request.accessKeyId)).toEqual([first?.accessKeyId, first?.accessKeyId, second?.accessKeyId]);
        expect(s3.requests.map((request) => request.securityToken)).toEqual([first?.sessionToken, first?.sessionToken, second?.sessionToken]);
      });
    });
  });

  it('names sessions within STS limits: 2-64 characters of [\\w+=,.@-]', () => {
    expect(roleSessionName(EXTERNAL_ID)).toBe(`svc-${EXTERNAL_ID}`);
    const odd = roleSessionName(`${'x'.repeat(80)}:/ä`);
    expect(odd).toMatch(/^[\w+=,.@-]{2,64}$/);
    expect(roleSessionName('')).toMatch(/^[\w+=,.@-]{2,64}$/);
  });
});

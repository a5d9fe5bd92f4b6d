import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient, STSServiceException, type Credentials } from '@aws-sdk/client-sts';
import { AWS4_SCHEME, signRequest } from '@svc/signing';
import { rawRequest, type RawAnswer } from './raw-http';
import type { S3Account } from './s3-signature-check';
import { startSignedS3rver, type SignedS3rver } from './signed-s3rver';
import { DEFAULT_EMBEDDED_CALLER_ARN, type RoleOfArn } from './sts-endpoint';

/**
 * npm start's embedded S3 server also answers STS on its endpoint, as MinIO does
 * (https://min.io/docs/minio/linux/developers/security-token-service.html): AssumeRole
 * (https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html) for the installation's account on the roles
 * its trust allows, refusals as STS words them (https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html),
 * and S3 requests signed with the sessions it issued, with their token, until they expire
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
 */
const BUCKET = 'role-bucket';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/svc-replication';
const EXTERNAL_ID = 'svc-0123456789abcdef0123456789abcdef';
const ACCESS_DENIED = `User: ${DEFAULT_EMBEDDED_CALLER_ARN} is not authorized to perform: sts:AssumeRole on resource: ${ROLE_ARN}`;

interface Failure {
  name: string;
  status: number | undefined;
  message: string;
}

async function failureOf(operation: Promise<unknown>): Promise<Failure | 'no error'> {
  try {
    await operation;
  } catch (error) {
    if (error instanceof STSServiceException || error instanceof S3ServiceException) return { name: error.name, status: error.$metadata.httpStatusCode, message: error.message };
    throw error;
  }
  return 'no error';
}

function rawPost(endpoint: string, headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return rawRequest(endpoint, 'POST', '/', headers, body);
}

describe("the embedded S3 server's STS", () => {
  let directory: string;
  let server: SignedS3rver;
  let account: S3Account;
  /** The front's clock runs this far ahead of the system's; clients given the same offset sign in its time. */
  let clockOffsetMs = 0;
  const trustCalls: [RoleOfArn, string | undefined][] = [];
  const clients: { destroy(): void }[] = [];

  const sts = (credentials: S3Account | Credentials | { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = account): STSClient => {
    const keys =
      'AccessKeyId' in credentials
        ? { accessKeyId: credentials.AccessKeyId ?? '', secretAccessKey: credentials.SecretAccessKey ?? '', sessionToken: credentials.SessionToken ?? '' }
        : credentials;
    const client = new STSClient({ endpoint: server.endpoint, region: 'eu-west-1', credentials: keys, maxAttempts: 1, systemClockOffset: clockOffsetMs });
    clients.push(client);
    return client;
  };
  const s3 = (keys: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }): S3Client => {
    const client = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: keys,
      maxAttempts: 1,
      systemClockOffset: clockOffsetMs,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    clients.push(client);
    return client;
  };
  const sessionKeys = (credentials: Credentials | undefined) => ({
    accessKeyId: credentials?.AccessKeyId ?? '',
    secretAccessKey: credentials?.SecretAccessKey ?? '',
    sessionToken: credentials?.SessionToken ?? '',
  });
  const assume = (overrides: Partial<{ ExternalId: string; DurationSeconds: number; RoleSessionName: string; RoleArn: string }> = {}, client = sts()) =>
    client.send(new AssumeRoleCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'svc-spec', ExternalId: EXTERNAL_ID, ...overrides }));

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'svc-embedded-sts-'));
    account = { accessKeyId: 'SVCLOCALSTSSPEC', secretAccessKey: randomBytes(30).toString('base64url') };
    server = await startSignedS3rver({
      port: 0,
      directory,
      account,
      buckets: [BUCKET],
      now: () => new Date(Date.now() + clockOffsetMs),
      sts: {
        trust: (role, externalId) => {
          trustCalls.push([role, externalId]);
          return Promise.resolve(role.accountId === '123456789012' && role.roleName === 'svc-replication' && externalId === EXTERNAL_ID);
        },
      },
    });
  });
  afterEach(() => {
    clockOffsetMs = 0;
    for (const client of clients.splice(0)) client.destroy();
  });
  afterAll(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("issues a fresh ASIA… session for the account when the role trusts the call's ExternalId", async () => {
    const before = Date.now();
    const answer = await assume();
    expect(trustCalls.at(-1)).toEqual([{ roleArn: ROLE_ARN, accountId: '123456789012', roleName: 'svc-replication' }, EXTERNAL_ID]);
    expect(answer.Credentials?.AccessKeyId).toMatch(/^ASIA[0-9A-F]{16}$/);
    expect(answer.Credentials?.SessionToken).toBeTruthy();
    expect(answer.AssumedRoleUser?.Arn).toBe('arn:aws:sts::123456789012:assumed-role/svc-replication/svc-spec');
    // DurationSeconds defaults to 3600, a new role's maximum.
    const expiresIn = (answer.Credentials?.Expiration?.getTime() ?? 0) - before;
    expect(expiresIn).toBeGreaterThanOrEqual(3599_000);
    expect(expiresIn).toBeLessThanOrEqual(3601_000);
    const short = await assume({ DurationSeconds: 900 });
    expect((short.Credentials?.Expiration?.getTime() ?? 0) - before).toBeLessThanOrEqual(901_000);
    expect(short.Credentials?.AccessKeyId).not.toBe(answer.Credentials?.AccessKeyId);
  });

  it('refuses a wrong or missing ExternalId, and a role that does not trust the account, with 403 AccessDenied as STS words it', async () => {
    const wrong = await failureOf(assume({ ExternalId: 'svc-ffffffffffffffffffffffffffffffff' }));
    const missing = await failureOf(sts().send(new AssumeRoleCommand({ RoleArn: ROLE_ARN, RoleSessionName: 'svc-spec' })));
    expect(wrong).toEqual({ name: 'AccessDenied', status: 403, message: ACCESS_DENIED });
    expect(missing).toEqual({ name: 'AccessDenied', status: 403, message: ACCESS_DENIED });
    expect(trustCalls.at(-1)?.[1]).toBeUndefined();
    const otherRole = 'arn:aws:iam::123456789012:role/other';
    expect(await failureOf(assume({ RoleArn: otherRole }))).toMatchObject({ name: 'AccessDenied', message: ACCESS_DENIED.replace(ROLE_ARN, otherRole) });
    expect(await failureOf(assume({ RoleArn: 'arn:aws:iam::123456789012:user/not-a-role' }))).toMatchObject({ name: 'AccessDenied', status: 403 });
  });

  it("validates AssumeRole's parameters as STS does (400 ValidationError)", async () => {
    expect(await failureOf(assume({ DurationSeconds: 7200 }))).toMatchObject({ name: 'ValidationError', status: 400, message: expect.stringContaining('MaxSessionDuration') as unknown });
    expect(await failureOf(assume({ DurationSeconds: 60 }))).toMatchObject({ name: 'ValidationError', status: 400 });
    expect(await failureOf(assume({ RoleSessionName: 'has space' }))).toMatchObject({ name: 'ValidationError', message: expect.stringContaining("'roleSessionName'") as unknown });
    expect(await failureOf(assume({ ExternalId: 'x' }))).toMatchObject({ name: 'ValidationError', message: expect.stringContaining("'externalId'") as unknown });
  });

  it('refuses calls that are unsigned, signed with a wrong secret, by an unknown key, or signed for another service', async () => {
    const form = `Action=AssumeRole&Version=2011-06-15&RoleArn=${encodeURIComponent(ROLE_ARN)}&RoleSessionName=svc-spec&ExternalId=${EXTERNAL_ID}`;
    const unsigned = await rawPost(server.endpoint, { 'content-type': 'application/x-www-form-urlencoded' }, form);
    expect(unsigned.status).toBe(403);
    expect(unsigned.body).toContain('<Code>MissingAuthenticationToken</Code>');
    expect(unsigned.body).not.toContain('SessionToken');

    expect(await failureOf(assume({}, sts({ ...account, secretAccessKey: `${account.secretAccessKey}x` })))).toMatchObject({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await failureOf(assume({}, sts({ accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'whatever' })))).toEqual({
      name: 'InvalidClientTokenId',
      status: 403,
      message: 'The security token included in the request is invalid.',
    });

    const { host } = new URL(server.endpoint);
    const signedForS3 = signRequest(
      AWS4_SCHEME,
      { method: 'POST', path: '/', headers: { host, 'content-type': 'application/x-www-form-urlencoded' }, body: form },
      { accessKeyId: account.accessKeyId, secretKey: account.secretAccessKey },
      { region: 'us-east-1', service: 's3', now: new Date() },
    );
    delete signedForS3['host'];
    const wrongService = await rawPost(server.endpoint, signedForS3, form);
    expect(wrongService.status).toBe(403);
    expect(wrongService.body).toContain('<Code>SignatureDoesNotMatch</Code>');
    // A signed form replayed with another body (another session name, another ExternalId) does not verify.
    const signedForSts = signRequest(
      AWS4_SCHEME,
      { method: 'POST', path: '/', headers: { host, 'content-type': 'application/x-www-form-urlencoded' }, body: form },
      { accessKeyId: account.accessKeyId, secretKey: account.secretAccessKey },
      { region: 'us-east-1', service: 'sts', now: new Date() },
    );
    delete signedForSts['host'];
    expect((await rawPost(server.endpoint, signedForSts, form)).status).toBe(200);
    const replayed = await rawPost(server.endpoint, signedForSts, form.replace('svc-spec', 'svc-other'));
    expect(replayed.status).toBe(403);
    expect(replayed.body).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it("answers GetCallerIdentity with the account's ARN, and a session's assumed-role ARN", async () => {
    const own = await sts().send(new GetCallerIdentityCommand({}));
    expect(own).toMatchObject({ Arn: DEFAULT_EMBEDDED_CALLER_ARN, Account: '000000000000' });
    const session = await assume();
    const asSession = await sts(sessionKeys(session.Credentials)).send(new GetCallerIdentityCommand({}));
    expect(asSession).toMatchObject({ Arn: 'arn:aws:sts::123456789012:assumed-role/svc-replication/svc-spec', Account: '123456789012' });
    // The trust policy names the account: a session does not assume roles (no role chaining).
    expect(await failureOf(assume({}, sts(sessionKeys(session.Credentials))))).toMatchObject({ name: 'AccessDenied', status: 403 });
  });

  it("serves S3 to a session's credentials with their token: PutObject and GetObject", async () => {
    const keys = sessionKeys((await assume()).Credentials);
    const client = s3(keys);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replications/rows.csv', Body: 'id\n1\n' }));
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'replications/rows.csv' }));
    expect(await object.Body?.transformToString()).toBe('id\n1\n');
    // The installation's own account still signs as before.
    const own = await s3(account).send(new GetObjectCommand({ Bucket: BUCKET, Key: 'replications/rows.csv' }));
    expect(await own.Body?.transformToString()).toBe('id\n1\n');
  });

  it("refuses a session's key with another token, without its token, with a tampered signature, and once expired", async () => {
    const keys = sessionKeys((await assume({ DurationSeconds: 900 })).Credentials);
    const other = sessionKeys((await assume()).Credentials);
    const get = (client: S3Client) => failureOf(client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'replications/rows.csv' })));
    await s3(keys).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replications/rows.csv', Body: 'id\n1\n' }));

    expect(await get(s3({ ...keys, sessionToken: other.sessionToken }))).toMatchObject({ name: 'InvalidToken', status: 400 });
    expect(await get(s3({ accessKeyId: keys.accessKeyId, secretAccessKey: keys.secretAccessKey }))).toMatchObject({ name: 'InvalidAccessKeyId', status: 403 });
    expect(await get(s3({ ...keys, secretAccessKey: other.secretAccessKey }))).toMatchObject({ name: 'SignatureDoesNotMatch', status: 403 });
    expect(await get(s3({ ...account, sessionToken: keys.sessionToken }))).toMatchObject({ name: 'InvalidToken', status: 400 });
    const path = `/${BUCKET}/replications/rows.csv`;
    const { host } = new URL(server.endpoint);
    const headers = signRequest(
      { ...AWS4_SCHEME, normalizePath: false },
      { method: 'GET', path, headers: { host, 'x-amz-security-token': keys.sessionToken }, body: '' },
      { accessKeyId: keys.accessKeyId, secretKey: keys.secretAccessKey },
      { region: 'us-east-1', service: 's3', now: new Date() },
    );
    expect(await rawRequest(server.endpoint, 'GET', path, headers)).toEqual({ status: 200, body: 'id\n1\n' });
    const tampered = { ...headers, authorization: (headers['authorization'] ?? '').replace(/Signature=(.)/, (_all, first: string) => `Signature=${first === '0' ? '1' : '0'}`) };
    const refused = await rawRequest(server.endpoint, 'GET', path, tampered);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('<Code>SignatureDoesNotMatch</Code>');

    clockOffsetMs = 899_000;
    expect(await get(s3(keys))).toBe('no error');
    clockOffsetMs = 901_000;
    expect(await get(s3(keys))).toMatchObject({ name: 'ExpiredToken', status: 400, message: 'The provided token has expired.' });
    expect(await failureOf(s3(keys).send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replications/late.csv', Body: 'late' })))).toMatchObject({ name: 'ExpiredToken' });
    expect(await failureOf(sts(keys).send(new GetCallerIdentityCommand({})))).toMatchObject({ name: 'ExpiredToken', status: 403 });
    // The session that is still valid works at the same moment.
    expect(await get(s3(other))).toBe('no error');
  });
});

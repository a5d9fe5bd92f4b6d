import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A local double of AWS STS for the two actions the service calls, speaking the Query API as AWS documents it:
 * a form-encoded POST (`Action=AssumeRole&Version=2011-06-15&RoleArn=…&RoleSessionName=…&ExternalId=…
 * &DurationSeconds=…`) answered with AssumeRoleResponse XML, or an ErrorResponse.
 *
 * - AssumeRole: https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html — RoleSessionName is 2-64
 *   characters of [\w+=,.@-], ExternalId 2-1224 of [\w+=,.@:/-], DurationSeconds 900-43200 and at most the role's
 *   maximum session duration (1 hour by default); a bad parameter is a 400 ValidationError.
 * - A role's trust policy decides who may assume it; a policy with `Condition StringEquals sts:ExternalId` refuses a
 *   call without that ExternalId with 403 AccessDenied, exactly as for a role that does not exist or does not trust
 *   the caller (https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html).
 * - GetCallerIdentity: https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html.
 * - Errors: https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html (ErrorResponse/Error/Code).
 *
 * The caller is told apart by the access key id of its SigV4 Authorization header (signatures are not checked).
 */
export interface TestSts {
  /** http://127.0.0.1:<port>: the STS_ENDPOINT of a service under test. */
  endpoint: string;
  /** Every call, in order, as received. */
  calls: StsCall[];
  /** Adds (or replaces) a role whose trust policy allows `principalAccessKeyId` with `externalId`. */
  trustRole(role: TrustedRole): void;
  /** Credentials this double issued, oldest first (what an S3 server should see signing requests). */
  issued: IssuedSession[];
  stop(): Promise<void>;
}

export interface TrustedRole {
  roleArn: string;
  /** The access key id of the principal the trust policy names; any caller when absent. */
  principalAccessKeyId?: string;
  /** The Condition StringEquals sts:ExternalId; absent → none required. */
  externalId?: string;
  /** The role's maximum session duration (3600 by default, as for a new role). */
  maxSessionSeconds?: number;
}

export interface StsCall {
  action: string;
  /** The access key id the request was signed with (from `Credential=<id>/…`), or null when unsigned. */
  callerAccessKeyId: string | null;
  roleArn?: string;
  roleSessionName?: string;
  externalId?: string;
  durationSeconds?: number;
  /** HTTP status of the answer. */
  status: number;
}

export interface IssuedSession {
  roleArn: string;
  accessKeyId: string;
  sessionToken: string;
  expiration: Date;
}

export interface TestStsOptions {
  /** The account and ARN GetCallerIdentity answers for the service's identity. */
  callerArn?: string;
  /** Shortens every issued session to this many seconds (a test of renewal); AWS's own minimum is 900. */
  sessionSecondsOverride?: number;
  /**
   * The key pair every session gets (each with a fresh session token): an S3 double that knows one account
   * (s3rver: S3RVER/S3RVER) accepts only its keys. Absent → a fresh ASIA… pair per session, as AWS does.
   */
  issuedKeys?: { accessKeyId: string; secretAccessKey: string };
}

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;
const DEFAULT_MAX_SESSION_SECONDS = 3600;

export async function startTestSts(options: TestStsOptions = {}): Promise<TestSts> {
  const roles = new Map<string, TrustedRole>();
  const calls: StsCall[] = [];
  const issued: IssuedSession[] = [];
  const callerArn = options.callerArn ?? 'arn:aws:iam::111122223333:user/replication-service';

  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const form = new URLSearchParams(body);
      const call: StsCall = { action: form.get('Action') ?? '', callerAccessKeyId: callerOf(request), status: 200 };
      const answer = answerFor(call, form);
      call.status = answer.status;
      calls.push(call);
      send(response, answer.status, answer.xml);
    });
  });

  function answerFor(call: StsCall, form: URLSearchParams): { status: number; xml: string } {
    if (form.get('Version') !== '2011-06-15') return error(400, 'InvalidAction', 'Could not find operation for this version');
    switch (call.action) {
      case 'AssumeRole':
        return assumeRole(call, form);
      case 'GetCallerIdentity':
        return { status: 200, xml: getCallerIdentityResponse(callerArn) };
      default:
        return error(400, 'InvalidAction', `Could not find operation ${call.action} for version 2011-06-15`);
    }
  }

  function assumeRole(call: StsCall, form: URLSearchParams): { status: number; xml: string } {
    const roleArn = form.get('RoleArn') ?? '';
    const roleSessionName = form.get('RoleSessionName') ?? '';
    const externalId = form.get('ExternalId') ?? undefined;
    const durationSeconds = Number(form.get('DurationSeconds') ?? DEFAULT_MAX_SESSION_SECONDS);
    Object.assign(call, { roleArn, roleSessionName, durationSeconds, ...(externalId !== undefined && { externalId }) });
    if (!SESSION_NAME.test(roleSessionName)) {
      return error(400, 'ValidationError', "1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*");
    }
    if (externalId !== undefined && !EXTERNAL_ID.test(externalId)) {
      return error(400, 'ValidationError', "1 validation error detected: Value at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]*");
    }
    const role = roles.get(roleArn);
    const maxSeconds = role?.maxSessionSeconds ?? DEFAULT_MAX_SESSION_SECONDS;
    if (!Number.isInteger(durationSeconds) || durationSeconds < 900 || durationSeconds > Math.min(43200, maxSeconds)) {
      return error(400, 'ValidationError', 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.');
    }
    const trusted =
      role !== undefined &&
      (role.principalAccessKeyId === undefined || role.principalAccessKeyId === call.callerAccessKeyId) &&
      (role.externalId === undefined || role.externalId === externalId);
    if (!trusted) return error(403, 'AccessDenied', `User: ${callerArn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);

    const seconds = options.sessionSecondsOverride ?? durationSeconds;
    const keys = options.issuedKeys ?? { accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(30).toString('base64') };
    const session: IssuedSession = {
      roleArn,
      accessKeyId: keys.accessKeyId,
      sessionToken: randomBytes(48).toString('base64'),
      expiration: new Date(Date.now() + seconds * 1000),
    };
    issued.push(session);
    return { status: 200, xml: assumeRoleResponse(roleArn, roleSessionName, keys.secretAccessKey, session) };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('STS double has no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    calls,
    issued,
    trustRole: (role) => roles.set(role.roleArn, role),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function callerOf(request: IncomingMessage): string | null {
  const authorization = request.headers.authorization ?? '';
  return /Credential=([^/,\s]+)\//.exec(authorization)?.[1] ?? null;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, xml: string): void {
  response.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  response.end(xml);
}

function error(status: number, code: string, message: string): { status: number; xml: string } {
  const type = status >= 500 ? 'Receiver' : 'Sender';
  return {
    status,
    xml: `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${type}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

function assumeRoleResponse(roleArn: string, sessionName: string, secretAccessKey: string, session: IssuedSession): string {
  const [, partition = 'aws', account = '', roleName = ''] = /^arn:([\w-]+):iam::(\d+):role\/(?:.*\/)?([^/]+)$/.exec(roleArn) ?? [];
  return (
    `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
    `<AssumedRoleUser><Arn>${escapeXml(`arn:${partition}:sts::${account}:assumed-role/${roleName}/${sessionName}`)}</Arn>` +
    `<AssumedRoleId>AROA${randomBytes(8).toString('hex').toUpperCase()}:${escapeXml(sessionName)}</AssumedRoleId></AssumedRoleUser>` +
    `<Credentials><AccessKeyId>${session.accessKeyId}</AccessKeyId><SecretAccessKey>${escapeXml(secretAccessKey)}</SecretAccessKey>` +
    `<SessionToken>${session.sessionToken}</SessionToken><Expiration>${session.expiration.toISOString()}</Expiration></Credentials>` +
    `</AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`
  );
}

function getCallerIdentityResponse(arn: string): string {
  const account = /^arn:[\w-]+:[\w-]+::(\d+):/.exec(arn)?.[1] ?? '';
  return (
    `<GetCallerIdentityResponse xmlns="${XMLNS}"><GetCallerIdentityResult><Arn>${escapeXml(arn)}</Arn>` +
    `<UserId>AIDA${randomBytes(8).toString('hex').toUpperCase()}</UserId><Account>${account}</Account></GetCallerIdentityResult>` +
    `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`
  );
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

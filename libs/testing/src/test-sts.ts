import { createServer, type IncomingMessage } from 'node:http';
import {
  actionOf,
  assumeRoleAccessDenied,
  assumeRoleParameters,
  assumeRoleResponse,
  assumeRoleValidationError,
  getCallerIdentityResponse,
  newSessionCredentials,
  readRequestBody,
  sendStsAnswer,
  type StsAnswer,
} from './sts-query-api';

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

export async function startTestSts(options: TestStsOptions = {}): Promise<TestSts> {
  const roles = new Map<string, TrustedRole>();
  const calls: StsCall[] = [];
  const issued: IssuedSession[] = [];
  const callerArn = options.callerArn ?? 'arn:aws:iam::111122223333:user/replication-service';

  const server = createServer((request, response) => {
    void readRequestBody(request).then((body) => {
      const form = new URLSearchParams(body);
      const call: StsCall = { action: form.get('Action') ?? '', callerAccessKeyId: callerOf(request), status: 200 };
      const answer = answerFor(call, form);
      call.status = answer.status;
      calls.push(call);
      sendStsAnswer(response, answer);
    });
  });

  function answerFor(call: StsCall, form: URLSearchParams): StsAnswer {
    const action = actionOf(form);
    if (typeof action !== 'string') return action;
    return action === 'AssumeRole' ? assumeRole(call, form) : { status: 200, xml: getCallerIdentityResponse(callerArn) };
  }

  function assumeRole(call: StsCall, form: URLSearchParams): StsAnswer {
    const parameters = assumeRoleParameters(form);
    const { roleArn, externalId } = parameters;
    Object.assign(call, parameters);
    const role = roles.get(roleArn);
    const invalid = assumeRoleValidationError(parameters, role?.maxSessionSeconds);
    if (invalid !== null) return invalid;
    const trusted =
      role !== undefined &&
      (role.principalAccessKeyId === undefined || role.principalAccessKeyId === call.callerAccessKeyId) &&
      (role.externalId === undefined || role.externalId === externalId);
    if (!trusted) return assumeRoleAccessDenied(callerArn, roleArn);

    const fresh = newSessionCredentials(options.sessionSecondsOverride ?? parameters.durationSeconds);
    const credentials = options.issuedKeys === undefined ? fresh : { ...fresh, ...options.issuedKeys };
    issued.push({ roleArn, accessKeyId: credentials.accessKeyId, sessionToken: credentials.sessionToken, expiration: credentials.expiration });
    return { status: 200, xml: assumeRoleResponse(roleArn, parameters.roleSessionName, credentials) };
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

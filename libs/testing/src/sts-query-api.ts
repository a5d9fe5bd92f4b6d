import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The parts of the AWS STS Query API that the tests' STS double (test-sts.ts) and the embedded S3 server's STS
 * (embedded-s3/sts-endpoint.ts) both speak: a form-encoded POST (`Action=AssumeRole&Version=2011-06-15&…`) answered
 * with the action's XML or an ErrorResponse.
 *
 * - AssumeRole: https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
 * - GetCallerIdentity: https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html
 * - Errors: https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html (ErrorResponse/Error/Code)
 */
export interface StsAnswer {
  status: number;
  xml: string;
}

/** What AssumeRole was asked, as the form carried it. */
export interface AssumeRoleParameters {
  roleArn: string;
  roleSessionName: string;
  externalId?: string;
  durationSeconds: number;
}

export interface SessionCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export const STS_VERSION = '2011-06-15';
/** A new role's MaxSessionDuration, and AssumeRole's DurationSeconds when the call gives none. */
export const DEFAULT_MAX_SESSION_SECONDS = 3600;
const MIN_SESSION_SECONDS = 900;
const MAX_SESSION_SECONDS = 43200;
const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

export function stsError(status: number, code: string, message: string): StsAnswer {
  const type = status >= 500 ? 'Receiver' : 'Sender';
  return {
    status,
    xml: `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${type}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

/** The form's Version and Action: the action's name, or the error STS gives for an unknown one. */
export function actionOf(form: URLSearchParams): string | StsAnswer {
  if (form.get('Version') !== STS_VERSION) return stsError(400, 'InvalidAction', 'Could not find operation for this version');
  const action = form.get('Action') ?? '';
  if (action !== 'AssumeRole' && action !== 'GetCallerIdentity') return stsError(400, 'InvalidAction', `Could not find operation ${action} for version ${STS_VERSION}`);
  return action;
}

export function assumeRoleParameters(form: URLSearchParams): AssumeRoleParameters {
  const externalId = form.get('ExternalId');
  return {
    roleArn: form.get('RoleArn') ?? '',
    roleSessionName: form.get('RoleSessionName') ?? '',
    durationSeconds: Number(form.get('DurationSeconds') ?? DEFAULT_MAX_SESSION_SECONDS),
    ...(externalId !== null && { externalId }),
  };
}

/** AssumeRole's parameter constraints, as its API reference states them: a 400 ValidationError, or null. */
export function assumeRoleValidationError(parameters: AssumeRoleParameters, maxSessionSeconds = DEFAULT_MAX_SESSION_SECONDS): StsAnswer | null {
  if (!SESSION_NAME.test(parameters.roleSessionName)) {
    return stsError(400, 'ValidationError', "1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*");
  }
  if (parameters.externalId !== undefined && !EXTERNAL_ID.test(parameters.externalId)) {
    return stsError(400, 'ValidationError', "1 validation error detected: Value at 'externalId' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@:\\/-]*");
  }
  const seconds = parameters.durationSeconds;
  if (!Number.isInteger(seconds) || seconds < MIN_SESSION_SECONDS || seconds > Math.min(MAX_SESSION_SECONDS, maxSessionSeconds)) {
    return stsError(400, 'ValidationError', 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.');
  }
  return null;
}

/** A role that does not exist, does not trust the caller, or wants another ExternalId: one answer for all three. */
export function assumeRoleAccessDenied(callerArn: string, roleArn: string): StsAnswer {
  return stsError(403, 'AccessDenied', `User: ${callerArn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`);
}

/** A fresh ASIA… key pair and session token, as AWS issues temporary credentials. */
export function newSessionCredentials(seconds: number, now = new Date()): SessionCredentials {
  return {
    accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64'),
    sessionToken: randomBytes(48).toString('base64'),
    expiration: new Date(now.getTime() + seconds * 1000),
  };
}

/** `arn:aws:iam::1:role/Name` and a session name → `arn:aws:sts::1:assumed-role/Name/session`. */
export function assumedRoleArn(roleArn: string, sessionName: string): string {
  const [, partition = 'aws', account = '', roleName = ''] = /^arn:([\w-]+):iam::(\d+):role\/(?:.*\/)?([^/]+)$/.exec(roleArn) ?? [];
  return `arn:${partition}:sts::${account}:assumed-role/${roleName}/${sessionName}`;
}

export function assumeRoleResponse(roleArn: string, sessionName: string, credentials: SessionCredentials): string {
  return (
    `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
    `<AssumedRoleUser><Arn>${escapeXml(assumedRoleArn(roleArn, sessionName))}</Arn>` +
    `<AssumedRoleId>AROA${randomBytes(8).toString('hex').toUpperCase()}:${escapeXml(sessionName)}</AssumedRoleId></AssumedRoleUser>` +
    `<Credentials><AccessKeyId>${credentials.accessKeyId}</AccessKeyId><SecretAccessKey>${escapeXml(credentials.secretAccessKey)}</SecretAccessKey>` +
    `<SessionToken>${escapeXml(credentials.sessionToken)}</SessionToken><Expiration>${credentials.expiration.toISOString()}</Expiration></Credentials>` +
    `</AssumeRoleResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></AssumeRoleResponse>`
  );
}

export function getCallerIdentityResponse(arn: string): string {
  const account = /^arn:[\w-]+:[\w-]+::(\d+):/.exec(arn)?.[1] ?? '';
  return (
    `<GetCallerIdentityResponse xmlns="${XMLNS}"><GetCallerIdentityResult><Arn>${escapeXml(arn)}</Arn>` +
    `<UserId>AIDA${randomBytes(8).toString('hex').toUpperCase()}</UserId><Account>${account}</Account></GetCallerIdentityResult>` +
    `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`
  );
}

/** The request's body as text; a body over `maxBytes` rejects (the request is left to be answered and closed). */
export async function readRequestBody(request: IncomingMessage, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new RangeError(`the request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendStsAnswer(response: ServerResponse, answer: StsAnswer): void {
  response.writeHead(answer.status, { 'content-type': 'text/xml', 'content-length': String(Buffer.byteLength(answer.xml)), 'x-amzn-requestid': randomUUID() });
  response.end(answer.xml);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

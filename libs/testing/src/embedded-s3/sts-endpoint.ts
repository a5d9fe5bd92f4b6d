import type { IncomingMessage, ServerResponse } from 'node:http';
import { AWS4_SCHEME, deriveSigningKey, parseAuthorization, verifyRequest, type VerifyFailure } from '@svc/signing';
import {
  actionOf,
  assumeRoleAccessDenied,
  assumeRoleParameters,
  assumeRoleResponse,
  assumeRoleValidationError,
  getCallerIdentityResponse,
  readRequestBody,
  sendStsAnswer,
  stsError,
  type StsAnswer,
} from '../sts-query-api';
import type { S3Account } from './s3-signature-check';
import { signingIdentity, type IdentityProblem, type SigningIdentity } from './signing-identity';
import type { StsSessions } from './sts-sessions';

/** A role of the installation, from the ARN AssumeRole names. */
export interface RoleOfArn {
  roleArn: string;
  accountId: string;
  /** Everything after `role/`, as the service writes the ARN of a RoleName. */
  roleName: string;
}

/**
 * The installation's trust policy: whether `role` lets the installation's account assume it with `externalId`
 * (the Condition StringEquals sts:ExternalId of https://docs.aws.amazon.com/IAM/latest/UserGuide/confused-deputy.html).
 */
export type RoleTrust = (role: RoleOfArn, externalId: string | undefined) => Promise<boolean>;

export interface EmbeddedStsOptions {
  trust: RoleTrust;
  /** What GetCallerIdentity answers for the installation's account (the Principal a trust policy names). */
  callerArn?: string;
}

/** What the front answers STS with: its account, the sessions it issued, and its clock. */
export interface StsFront {
  account: S3Account;
  sessions: StsSessions;
  now: () => Date;
}

export const DEFAULT_EMBEDDED_CALLER_ARN = 'arn:aws:iam::000000000000:user/svc-local-service';
/** STS request bodies are a few form fields; AssumeRole's largest (a session policy) is at most 2048 characters packed. */
const MAX_BODY_BYTES = 64 * 1024;
const ROLE_ARN = /^arn:[\w-]+:iam::(\d{12}):role\/(.+)$/;

/**
 * Whether a request to the S3 endpoint is an STS call instead: a form POST to the root, which is no S3 operation on
 * path-style buckets. MinIO tells them apart the same way and answers AssumeRole on its S3 endpoint
 * (https://min.io/docs/minio/linux/developers/security-token-service.html).
 */
export function isStsRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  return req.method === 'POST' && path === '/' && mediaType === 'application/x-www-form-urlencoded';
}

/**
 * Answers an STS Query API call (AssumeRole, GetCallerIdentity) signed with AWS Signature Version 4 by the account
 * or by one of `sessions` (https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html for the refusals).
 * AssumeRole is allowed to the account alone, on the roles `options.trust` says trust it, and issues a session of
 * `sessions`.
 */
export async function answerSts(req: IncomingMessage, res: ServerResponse, front: StsFront, options: EmbeddedStsOptions): Promise<void> {
  let body: string;
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();
  try {
    body = await readRequestBody(req, MAX_BODY_BYTES);
  } catch {
    res.setHeader('connection', 'close');
    return sendStsAnswer(res, stsError(413, 'RequestEntityTooLarge', `Request body must be at most ${MAX_BODY_BYTES} bytes.`));
  }
  sendStsAnswer(res, await stsAnswer(req, body, front, options).catch(() => stsError(500, 'InternalFailure', 'The request processing has failed because of an unknown error, exception or failure.')));
}

async function stsAnswer(req: IncomingMessage, body: string, front: StsFront, options: EmbeddedStsOptions): Promise<StsAnswer> {
  const caller = await authenticate(req, body, front);
  if ('status' in caller) return caller;
  const callerArn = caller.kind === 'session' ? caller.session.assumedRoleArn : (options.callerArn ?? DEFAULT_EMBEDDED_CALLER_ARN);

  const form = new URLSearchParams(body);
  const action = actionOf(form);
  if (typeof action !== 'string') return action;
  if (action === 'GetCallerIdentity') return { status: 200, xml: getCallerIdentityResponse(callerArn) };

  const parameters = assumeRoleParameters(form);
  const invalid = assumeRoleValidationError(parameters);
  if (invalid !== null) return invalid;
  const role = roleOfArn(parameters.roleArn);
  // The trust policy names the installation's account: a session assuming another role (role chaining) is not it.
  if (caller.kind !== 'account' || role === null || !(await options.trust(role, parameters.externalId))) return assumeRoleAccessDenied(callerArn, parameters.roleArn);
  const session = front.sessions.issue(parameters.roleArn, parameters.roleSessionName, parameters.durationSeconds);
  return { status: 200, xml: assumeRoleResponse(parameters.roleArn, parameters.roleSessionName, session) };
}

export function roleOfArn(roleArn: string): RoleOfArn | null {
  const match = ROLE_ARN.exec(roleArn);
  return match === null ? null : { roleArn, accountId: match[1] ?? '', roleName: match[2] ?? '' };
}

/** Who signed the call, verified as STS verifies it (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html). */
async function authenticate(req: IncomingMessage, body: string, { account, sessions, now: clock }: StsFront): Promise<SigningIdentity | StsAnswer> {
  const now = clock();
  const authorization = req.headers.authorization;
  if (authorization === undefined) return stsError(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
  const parsed = parseAuthorization(AWS4_SCHEME, authorization);
  if (!parsed.ok) return stsError(400, 'IncompleteSignature', `The request signature does not conform to AWS standards: ${parsed.reason}`);
  const identity = signingIdentity(parsed.value.accessKeyId, req.headers, account, (id) => sessions.find(id), now);
  if ('problem' in identity) return refuseIdentity(identity.problem);

  const [path = '/', query = ''] = (req.url ?? '/').split('?');
  const verified = await verifyRequest(
    AWS4_SCHEME,
    { method: req.method ?? 'POST', path, query: queryOf(query), headers: req.headers, body },
    (_accessKeyId, scope) => Promise.resolve(deriveSigningKey(AWS4_SCHEME, identity.secretAccessKey, scope)),
    { region: parsed.value.scope.region, service: 'sts', now, requiredSignedHeaders: ['host', 'x-amz-date'] },
  );
  return verified.ok ? identity : refuseSignature(verified.failure, now);
}

function refuseIdentity(problem: IdentityProblem): StsAnswer {
  switch (problem) {
    case 'UnknownAccessKey':
    case 'WrongToken':
      return stsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    case 'ExpiredToken':
      return stsError(403, 'ExpiredToken', 'The security token included in the request is expired');
  }
}

function refuseSignature(failure: VerifyFailure, now: Date): StsAnswer {
  switch (failure.reason) {
    case 'ExpiredDate':
      return stsError(403, 'SignatureDoesNotMatch', `Signature expired: the request date is more than 15 minutes from ${now.toISOString()}.`);
    case 'WrongScope':
      return stsError(403, 'SignatureDoesNotMatch', `Credential should be scoped to a valid date, region and service 'sts': ${failure.message}.`);
    case 'MissingAuthorization':
    case 'MalformedAuthorization':
    case 'MissingHeader':
    case 'UnsignedRequiredHeader':
      return stsError(400, 'IncompleteSignature', `The request signature does not conform to AWS standards: ${failure.message}.`);
    case 'UnknownAccessKey':
      return stsError(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    case 'ContentHashMismatch':
    case 'SignatureMismatch':
      return stsError(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      );
  }
}

function queryOf(text: string): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) (query[name] ??= []).push(value);
  return query;
}

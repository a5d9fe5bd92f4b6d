import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  AWS4_SCHEME,
  calculateSignature,
  canonicalRequest,
  deriveSigningKey,
  parseAuthorization,
  stringToSign,
  verifyHeaders,
  type SigningScheme,
  type VerifyFailure,
} from '@svc/signing';
import { signingIdentity, type IdentityProblem, type SessionLookup } from './signing-identity';

/** The one account an embedded S3 server knows. */
export interface S3Account {
  accessKeyId: string;
  secretAccessKey: string;
}

/** An S3 error answer (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html). */
export interface S3ErrorAnswer {
  status: number;
  code: string;
  message: string;
}

/** How the body of a request whose signature verified is bound to it. */
export type S3Payload = { kind: 'unsigned' } | { kind: 'sha256'; hex: string };

export type S3SignatureCheck = { ok: true; payload: S3Payload } | { ok: false; error: S3ErrorAnswer };

export interface S3RequestHead {
  method: string;
  /** The request target as on the request line: path and query, percent-encoded. */
  url: string;
  headers: IncomingHttpHeaders;
}

/** S3 signs the path without normalising it, each segment URI-encoded once (unlike other AWS services). */
const S3_SCHEME: SigningScheme = { ...AWS4_SCHEME, normalizePath: false };
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const QUERY_AUTHENTICATION = ['x-amz-algorithm', 'x-amz-credential', 'x-amz-signature', 'signature', 'awsaccesskeyid'];

function refuse(status: number, code: string, message: string): S3SignatureCheck {
  return { ok: false, error: { status, code, message } };
}

/**
 * Verifies the AWS Signature Version 4 of an S3 request from its request line and headers, as S3 does
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html): Authorization header
 * form only; the date within 15 minutes of `now`; the payload hash as the x-amz-content-sha256 header declares it
 * (the body itself is checked against a declared hash by whoever streams it). Refuses anonymous requests. Signed by
 * `account`, or by a session of `sessions` with its X-Amz-Security-Token.
 */
export function checkS3Signature(request: S3RequestHead, account: S3Account, now: Date, sessions?: SessionLookup): S3SignatureCheck {
  const target = splitTarget(request.url);
  if (!target) return refuse(400, 'InvalidURI', 'Couldn\'t parse the specified URI.');
  if (Object.keys(target.query).some((name) => QUERY_AUTHENTICATION.includes(name.toLowerCase()))) {
    return refuse(403, 'AccessDenied', 'Query-string (presigned) authentication is not accepted here; sign the Authorization header.');
  }
  const authorization = request.headers.authorization;
  if (authorization === undefined) return refuse(403, 'AccessDenied', 'Access Denied: anonymous requests are refused; sign requests with AWS Signature Version 4.');
  const parsed = parseAuthorization(S3_SCHEME, authorization);
  if (!parsed.ok) return refuse(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed: ${parsed.reason}.`);
  const { scope } = parsed.value;

  const headers = verifyHeaders(S3_SCHEME, { method: request.method, path: target.path, query: target.query, headers: request.headers }, {
    region: scope.region,
    service: 's3',
    now,
  });
  if (!headers.ok) return refuseHeaders(headers.failure);

  const payload = payloadOf(request.headers['x-amz-content-sha256'] ?? '');
  if ('error' in payload) return { ok: false, error: payload.error };

  const identity = signingIdentity(parsed.value.accessKeyId, request.headers, account, sessions, now);
  if ('problem' in identity) return refuseIdentity(identity.problem);
  const canonical = canonicalRequest(
    S3_SCHEME,
    { method: request.method, path: target.path, query: target.query, headers: request.headers },
    parsed.value.signedHeaders,
    payload.kind === 'unsigned' ? 'UNSIGNED-PAYLOAD' : payload.hex,
  );
  const signingKey = deriveSigningKey(S3_SCHEME, identity.secretAccessKey, scope);
  const expected = Buffer.from(calculateSignature(signingKey, stringToSign(S3_SCHEME, headers.value.signingDate, scope, canonical)), 'hex');
  const provided = Buffer.from(parsed.value.signature, 'hex');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  return { ok: true, payload };
}

/** S3's words for keys and session tokens it does not accept (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html). */
function refuseIdentity(problem: IdentityProblem): S3SignatureCheck {
  switch (problem) {
    case 'UnknownAccessKey':
      return refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    case 'WrongToken':
      return refuse(400, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
    case 'ExpiredToken':
      return refuse(400, 'ExpiredToken', 'The provided token has expired.');
  }
}

function refuseHeaders(failure: VerifyFailure): S3SignatureCheck {
  switch (failure.reason) {
    case 'ExpiredDate':
      return refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    case 'MissingHeader':
    case 'UnsignedRequiredHeader':
      return refuse(400, 'InvalidRequest', `Missing or unsigned required header: ${failure.message}.`);
    case 'MissingAuthorization':
    case 'MalformedAuthorization':
    case 'WrongScope':
      return refuse(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed: ${failure.message}.`);
    case 'ContentHashMismatch':
    case 'UnknownAccessKey':
    case 'SignatureMismatch':
      // verifyHeaders does not reach these checks.
      return refuse(403, 'AccessDenied', failure.message);
  }
}

function payloadOf(declared: string | string[]): S3Payload | { error: S3ErrorAnswer } {
  if (declared === 'UNSIGNED-PAYLOAD') return { kind: 'unsigned' };
  if (typeof declared === 'string' && HEX_SHA256.test(declared)) return { kind: 'sha256', hex: declared };
  if (typeof declared === 'string' && declared.startsWith('STREAMING-')) {
    return { error: { status: 501, code: 'NotImplemented', message: 'aws-chunked uploads (x-amz-content-sha256 STREAMING-*) are not supported by this server.' } };
  }
  return { error: { status: 400, code: 'InvalidArgument', message: 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or the lower-case hex SHA-256 of the body.' } };
}

/** Path decoded segment by segment (the signer encodes each once) and query decoded, or null when not percent-decodable. */
function splitTarget(url: string): { path: string; query: Record<string, string[]> } | null {
  const mark = url.indexOf('?');
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const rawQuery = mark < 0 ? '' : url.slice(mark + 1);
  try {
    const path = rawPath.split('/').map(decodeURIComponent).join('/');
    const query: Record<string, string[]> = {};
    for (const pair of rawQuery.split('&')) {
      if (pair === '') continue;
      const equals = pair.indexOf('=');
      const name = decodeURIComponent(equals < 0 ? pair : pair.slice(0, equals));
      const value = equals < 0 ? '' : decodeURIComponent(pair.slice(equals + 1));
      (query[name] ??= []).push(value);
    }
    return { path, query };
  } catch {
    return null;
  }
}

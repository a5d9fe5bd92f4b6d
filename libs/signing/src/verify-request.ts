import { timingSafeEqual } from 'node:crypto';
import {
  canonicalRequest,
  formatSigningDate,
  headerValues,
  parseAuthorization,
  parseSigningDate,
  type ParsedAuthorization,
  type RequestToSign as HttpRequestToSign,
  type SigningScheme,
  type SigningScope,
} from './core';
import { calculateSignature, sha256Hex, stringToSign } from './signature';

export const DEFAULT_MAX_SKEW_MS = 15 * 60 * 1000;

export interface VerifyOptions {
  region: string;
  service: string;
  now: Date;
  /** Allowed distance between the date header and `now`; default 15 minutes. */
  maxSkewMs?: number;
  /** Headers that must be present and signed; default host, the date header and the content-hash header. */
  requiredSignedHeaders?: string[];
}

export type VerifyFailureReason =
  | 'MissingAuthorization'
  | 'MalformedAuthorization'
  | 'MissingHeader'
  | 'UnsignedRequiredHeader'
  | 'ExpiredDate'
  | 'WrongScope'
  | 'ContentHashMismatch'
  | 'UnknownAccessKey'
  | 'SignatureMismatch';

export type VerifyFailure = { reason: VerifyFailureReason; message: string };

export type VerifyResult = { ok: true; accessKeyId: string } | { ok: false; failure: VerifyFailure };

/** Returns the derived key for (accessKeyId, scope), or null for an unknown key, so the verifier never sees a secret. */
export type SigningKeyLookup = (accessKeyId: string, scope: SigningScope) => Promise<Buffer | null>;

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

function fail(reason: VerifyFailureReason, message: string): { ok: false; failure: VerifyFailure } {
  return { ok: false, failure: { reason, message } };
}

/** What the headers alone establish: a well-formed Authorization whose required headers are present and signed, and a date in range. */
export interface VerifiedHeaders {
  authorization: ParsedAuthorization;
  /** The date header as sent (yyyymmddThhmmssZ), which the string to sign repeats. */
  signingDate: string;
  signedAt: Date;
}

export type VerifyHeadersResult = { ok: true; value: VerifiedHeaders } | { ok: false; failure: VerifyFailure };

/**
 * The checks that need neither the body nor a key, so that a server can run them before reading the body:
 * Authorization well formed for this scheme; required headers present and signed; every signed header
 * present; date header valid and within the allowed skew; scope date, region and service.
 */
export function verifyHeaders(scheme: SigningScheme, request: Omit<HttpRequestToSign, 'body'>, options: VerifyOptions): VerifyHeadersResult {
  const authorizationValues = headerValues(request.headers, 'authorization');
  if (authorizationValues.length === 0) return fail('MissingAuthorization', 'the request has no Authorization header');
  if (authorizationValues.length > 1) return fail('MalformedAuthorization', 'the request has more than one Authorization header');
  const parsed = parseAuthorization(scheme, authorizationValues[0]);
  if (!parsed.ok) return fail('MalformedAuthorization', `malformed Authorization header: ${parsed.reason}`);
  const authorization = parsed.value;

  const headerProblem = checkSignedHeaders(scheme, request, authorization, options);
  if (headerProblem) return headerProblem;

  const dateValues = headerValues(request.headers, scheme.dateHeader);
  const signingDate = dateValues.length === 1 ? dateValues[0] : '';
  const signedAt = parseSigningDate(signingDate);
  if (!signedAt) return fail('MalformedAuthorization', `the ${scheme.dateHeader} header must be one timestamp of the form yyyymmddThhmmssZ`);
  const maxSkewMs = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  if (Math.abs(signedAt.getTime() - options.now.getTime()) > maxSkewMs) {
    return fail(
      'ExpiredDate',
      `the ${scheme.dateHeader} ${signingDate} is more than ${describeMs(maxSkewMs)} away from the server time ${formatSigningDate(options.now)}: set the caller's clock (NTP), then sign again`,
    );
  }

  const scopeProblem = checkScope(scheme, authorization.scope, signingDate, options);
  if (scopeProblem) return scopeProblem;
  return { ok: true, value: { authorization, signingDate, signedAt } };
}

/**
 * Checks, in order: everything `verifyHeaders` checks; body hash; access key known; signature (constant-time).
 * The lookup runs only once every cheap check has passed.
 * Errors thrown by `lookupSigningKey` propagate: they are infrastructure failures, not authentication failures.
 */
export async function verifyRequest(
  scheme: SigningScheme,
  request: HttpRequestToSign,
  lookupSigningKey: SigningKeyLookup,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const headers = verifyHeaders(scheme, request, options);
  if (!headers.ok) return headers;
  const { authorization, signingDate } = headers.value;

  const payloadHash = checkContentHash(scheme, request);
  if (!payloadHash.ok) return payloadHash;

  return checkSignature(scheme, request, { authorization, signingDate }, payloadHash.value, lookupSigningKey);
}

/** A request as one server forwards it to another that holds the keys: everything signed but the body, which its signed hash stands for. */
export type RequestWithoutBody = Omit<HttpRequestToSign, 'body'>;

/**
 * Verifies a request whose body stayed with the server that received it (and checked it against the hash). The
 * signature covers the body through the signed content-hash header, which must therefore be present, signed and
 * one hex SHA-256 digest here whatever `requiredSignedHeaders` says: who verifies this way never sees the body.
 */
export async function verifyRequestWithoutBody(
  scheme: SigningScheme,
  request: RequestWithoutBody,
  lookupSigningKey: SigningKeyLookup,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const headers = verifyHeaders(scheme, request, options);
  if (!headers.ok) return headers;
  const hashHeader = scheme.contentHashHeader.toLowerCase();
  if (!headers.value.authorization.signedHeaders.map((name) => name.toLowerCase()).includes(hashHeader)) {
    return fail('UnsignedRequiredHeader', `the ${hashHeader} header must be listed in SignedHeaders`);
  }
  const hashes = headerValues(request.headers, hashHeader);
  if (hashes.length !== 1 || !HEX_SHA256.test(hashes[0])) return fail('ContentHashMismatch', `the ${hashHeader} header must be one hex SHA-256 digest`);
  return checkSignature(scheme, request, headers.value, hashes[0], lookupSigningKey);
}

async function checkSignature(
  scheme: SigningScheme,
  request: RequestWithoutBody,
  { authorization, signingDate }: Pick<VerifiedHeaders, 'authorization' | 'signingDate'>,
  payloadHash: string,
  lookupSigningKey: SigningKeyLookup,
): Promise<VerifyResult> {
  const signingKey = await lookupSigningKey(authorization.accessKeyId, authorization.scope);
  if (!signingKey) return fail('UnknownAccessKey', 'the access key in the Credential is not known');

  const canonical = canonicalRequest(scheme, request, authorization.signedHeaders, payloadHash);
  const expected = Buffer.from(calculateSignature(signingKey, stringToSign(scheme, signingDate, authorization.scope, canonical)), 'hex');
  const provided = Buffer.from(authorization.signature, 'hex');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return fail('SignatureMismatch', 'the request signature does not match; check the secret key and how the request is signed');
  }
  return { ok: true, accessKeyId: authorization.accessKeyId };
}

function checkSignedHeaders(
  scheme: SigningScheme,
  request: Omit<HttpRequestToSign, 'body'>,
  authorization: ParsedAuthorization,
  options: VerifyOptions,
): { ok: false; failure: VerifyFailure } | null {
  const signed = new Set(authorization.signedHeaders);
  const required = (options.requiredSignedHeaders ?? ['host', scheme.dateHeader, scheme.contentHashHeader]).map((name) => name.toLowerCase());
  for (const name of required) {
    if (headerValues(request.headers, name).length === 0) return fail('MissingHeader', `the request has no ${name} header`);
    if (!signed.has(name)) return fail('UnsignedRequiredHeader', `the ${name} header must be listed in SignedHeaders`);
  }
  // The date header feeds the string to sign, so it is needed even when not required to be signed.
  for (const name of [scheme.dateHeader, ...authorization.signedHeaders]) {
    if (headerValues(request.headers, name).length === 0) {
      return fail('MissingHeader', `the ${name} header is ${name === scheme.dateHeader ? 'required' : 'listed in SignedHeaders'} but absent`);
    }
  }
  return null;
}

function checkScope(
  scheme: SigningScheme,
  scope: SigningScope,
  amzDate: string,
  options: VerifyOptions,
): { ok: false; failure: VerifyFailure } | null {
  if (scope.date !== amzDate.slice(0, 8)) {
    return fail('WrongScope', `the Credential scope date ${scope.date} is not the day of the ${scheme.dateHeader} header`);
  }
  if (scope.region !== options.region) return fail('WrongScope', `the Credential scope region must be ${options.region}`);
  if (scope.service !== options.service) return fail('WrongScope', `the Credential scope service must be ${options.service}`);
  return null;
}

/**
 * The body against the content-hash header, when one is sent: what a server that forwards a request without its body
 * (verifyRequestWithoutBody) checks itself before forwarding.
 */
export function verifyBodyHash(scheme: SigningScheme, request: HttpRequestToSign): { ok: true } | { ok: false; failure: VerifyFailure } {
  const checked = checkContentHash(scheme, request);
  return checked.ok ? { ok: true } : checked;
}

/** The payload hash for the canonical request: the header value as sent when present, else the body's hash. */
function checkContentHash(scheme: SigningScheme, request: HttpRequestToSign): { ok: true; value: string } | { ok: false; failure: VerifyFailure } {
  const bodyHash = sha256Hex(request.body);
  const values = headerValues(request.headers, scheme.contentHashHeader);
  if (values.length === 0) return { ok: true, value: bodyHash };
  const [claimed] = values;
  if (values.length > 1 || !HEX_SHA256.test(claimed)) {
    return fail('ContentHashMismatch', `the ${scheme.contentHashHeader} header must be one hex SHA-256 digest`);
  }
  if (claimed.toLowerCase() !== bodyHash) {
    return fail('ContentHashMismatch', `the ${scheme.contentHashHeader} header does not match the SHA-256 of the body`);
  }
  return { ok: true, value: claimed };
}

function describeMs(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} seconds`;
}

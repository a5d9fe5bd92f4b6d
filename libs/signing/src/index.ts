export {
  AWS4_SCHEME,
  SVC4_SCHEME,
  canonicalQueryString,
  canonicalRequest,
  canonicalUri,
  credentialScope,
  formatAuthorization,
  formatSigningDate,
  parseAuthorization,
  parseSigningDate,
  uriEncode,
  type ParseAuthorizationResult,
  type ParsedAuthorization,
  type RequestToSign as HttpRequestToSign,
  type SigningCredentials,
  type SigningScheme,
  type SigningScope,
} from './core';
export { calculateSignature, deriveSigningKey, sha256Hex, stringToSign } from './signature';
export { signRequest, type SignRequestOptions } from './sign-request';
export {
  DEFAULT_MAX_SKEW_MS,
  verifyHeaders,
  verifyRequest,
  type SigningKeyLookup,
  type VerifiedHeaders,
  type VerifyHeadersResult,
  type VerifyFailure,
  type VerifyFailureReason,
  type VerifyOptions,
  type VerifyResult,
} from './verify-request';

export { AWS4_SCHEME, SVC4_SCHEME, type SigningScheme } from './signing-scheme';
export type { HttpRequestToSign } from './http-request';
export { formatSigningDate, parseSigningDate } from './signing-date';
export {
  calculateSignature,
  credentialScope,
  deriveSigningKey,
  sha256Hex,
  stringToSign,
  type SigningCredentials,
  type SigningScope,
} from './signature';
export { canonicalQueryString, canonicalRequest, canonicalUri, uriEncode } from './canonical-request';
export { formatAuthorization, parseAuthorization, type ParseAuthorizationResult, type ParsedAuthorization } from './authorization';
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

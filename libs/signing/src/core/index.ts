/**
 * SigV4-style signing with no Node and no browser global: the API's server (libs/signing, node:crypto) and the
 * operator console (WebCrypto) both sign and check with it, passing in their own digest functions.
 */
export { AWS4_SCHEME, SVC4_SCHEME, type SigningScheme } from './signing-scheme';
export { canonicalQueryString, canonicalRequest, canonicalUri, headerValues, normalizeSignedHeaders, uriEncode, type RequestToSign } from './canonical-request';
export { formatSigningDate, parseSigningDate } from './signing-date';
export { formatAuthorization, parseAuthorization, type ParseAuthorizationResult, type ParsedAuthorization } from './authorization';
export { calculateSignature, credentialScope, deriveSigningKey, sha256Hex, stringToSign, type SigningCredentials, type SigningScope } from './signature';
export { signRequest, type SignRequestOptions } from './sign-request';
export { runDigests, runDigestsAsync, webCryptoDigests, type AsyncDigests, type DigestCall, type Digesting, type Digests, type SubtleDigests } from './digesting';

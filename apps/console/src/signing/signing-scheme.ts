/**
 * The names that tell one SigV4-family scheme from another (libs/signing's SigningScheme, which the browser
 * cannot import: it is built on node:crypto). signing-scheme.spec.ts keeps both copies equal.
 */
export interface SigningScheme {
  algorithm: string;
  secretPrefix: string;
  terminator: string;
  dateHeader: string;
  contentHashHeader: string;
  /** A random header, signed, that makes two otherwise identical calls differ (libs/signing's SigningScheme). */
  nonceHeader?: string;
  /** SigV4's path normalisation (drop `.` and empty segments, resolve `..`); SVC4 signs the path as sent. */
  normalizePath: boolean;
}

export const SVC4_SCHEME: SigningScheme = {
  algorithm: 'SVC4-HMAC-SHA256',
  secretPrefix: 'SVC4',
  terminator: 'svc4_request',
  dateHeader: 'x-svc-date',
  contentHashHeader: 'x-svc-content-sha256',
  nonceHeader: 'x-svc-nonce',
  normalizePath: false,
};

export const AWS4_SCHEME: SigningScheme = {
  algorithm: 'AWS4-HMAC-SHA256',
  secretPrefix: 'AWS4',
  terminator: 'aws4_request',
  dateHeader: 'x-amz-date',
  contentHashHeader: 'x-amz-content-sha256',
  normalizePath: true,
};

/** Scope service of the replication API (libs/config SIGNING_SERVICE_NAME). */
export const SIGNING_SERVICE = 'replication';

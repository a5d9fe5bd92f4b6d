/**
 * The names that distinguish one SigV4-family scheme from another. Header names are lower-case.
 * `normalizePath` selects the SigV4 (non-S3) path normalisation (drop `.`/empty segments, resolve `..`);
 * when false the path is used exactly as received. Either way each segment is percent-encoded once.
 */
export interface SigningScheme {
  algorithm: string;
  secretPrefix: string;
  terminator: string;
  dateHeader: string;
  contentHashHeader: string;
  /**
   * A header of random text a client may add (and sign) so that two otherwise identical calls within one second
   * carry different signatures: a server that refuses a signature seen before still accepts both.
   */
  nonceHeader?: string;
  normalizePath?: boolean;
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

import { S3_UNREACHABLE_REASON, s3FailureReason } from './s3-failure-reason';

/** Shaped like an S3ServiceException: name = S3 error code, HTTP status in $metadata. */
function s3Error(name: string, status: number): Error {
  return Object.assign(new Error(`${name} message`), { name, $metadata: { httpStatusCode: status } });
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

describe('s3FailureReason', () => {
  it.each([
    ['AccessDenied', s3Error('AccessDenied', 403), 'access denied'],
    ['bare 403', s3Error('Forbidden', 403), 'access denied'],
    ['unknown key', s3Error('InvalidAccessKeyId', 403), 'access denied: unknown access key'],
    ['wrong secret', s3Error('SignatureDoesNotMatch', 403), 'access denied: secret key does not match'],
    ['no bucket', s3Error('NoSuchBucket', 404), 'bucket does not exist'],
    ['bad name', s3Error('InvalidBucketName', 400), 'invalid bucket name'],
    ['taken', s3Error('BucketAlreadyExists', 409), 'bucket name is taken by another account'],
    ['wrong region', s3Error('PermanentRedirect', 301), 'bucket is not in the region named by RegionEndpoint'],
    ['no service credentials', Object.assign(new Error('Could not load credentials'), { name: 'CredentialsProviderError' }), 'no service credentials available for IAMRole access'],
    ['refused', socketError('ECONNREFUSED'), S3_UNREACHABLE_REASON],
    ['dual-stack refused', new AggregateError([socketError('ECONNREFUSED')]), S3_UNREACHABLE_REASON],
    ['unknown host', socketError('ENOTFOUND'), S3_UNREACHABLE_REASON],
    ['re-wrapped by the SDK', new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9'), S3_UNREACHABLE_REASON],
    ['aborted', Object.assign(new Error('aborted'), { name: 'AbortError' }), S3_UNREACHABLE_REASON],
    ['reset', socketError('ECONNRESET'), S3_UNREACHABLE_REASON],
    ['TLS', socketError('EPROTO'), S3_UNREACHABLE_REASON],
    ['bad region', new Error('Invalid region in client config'), 'invalid RegionEndpoint'],
    ['other S3 code', s3Error('SlowDown', 503), 'S3 error SlowDown (HTTP 503)'],
    ['other', new Error('secret=abc'), 'unexpected error'],
    ['not an error', 42, 'unexpected error'],
  ])('%s', (_label, error, reason) => {
    expect(s3FailureReason(error)).toBe(reason);
  });
});

describe('S3_UNREACHABLE_REASON', () => {
  it('is one text for every endpoint not reached, naming no cause', () => {
    expect(S3_UNREACHABLE_REASON).toBe('cannot reach the S3 endpoint (refused, timed out, unknown host or TLS failed)');
  });
});

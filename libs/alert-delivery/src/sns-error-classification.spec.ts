import {
  AuthorizationErrorException,
  InternalErrorException,
  InvalidParameterException,
  KMSAccessDeniedException,
  KMSThrottlingException,
  NotFoundException,
  SNSServiceException,
  ThrottledException,
} from '@aws-sdk/client-sns';
import { classifySnsError } from './sns-error-classification';

const metadata = (httpStatusCode: number) => ({ $metadata: { httpStatusCode }, message: 'refused' });

/** An error of a code the SDK has no class for, as it builds one from the ErrorResponse. */
function unmodeled(code: string, httpStatusCode: number): SNSServiceException {
  return new SNSServiceException({ name: code, $fault: httpStatusCode >= 500 ? 'server' : 'client', ...metadata(httpStatusCode) });
}

function networkError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code });
}

describe('classifySnsError', () => {
  it.each([
    ['NotFound', new NotFoundException(metadata(404)), 'NotFound', false],
    ['AuthorizationError', new AuthorizationErrorException(metadata(403)), 'AuthorizationError', false],
    ['InvalidParameter', new InvalidParameterException(metadata(400)), 'InvalidParameter', false],
    ['KMSAccessDenied', new KMSAccessDeniedException(metadata(400)), 'KMSAccessDenied', false],
    ['KMSThrottling', new KMSThrottlingException(metadata(400)), 'KMSThrottling', true],
    ['Throttled', new ThrottledException(metadata(429)), 'Throttled', true],
    ['InternalError', new InternalErrorException(metadata(500)), 'InternalError', true],
    ['common Throttling (400)', unmodeled('Throttling', 400), 'Throttling', true],
    ['common ServiceUnavailable', unmodeled('ServiceUnavailable', 503), 'ServiceUnavailable', true],
    ['common MissingAuthenticationToken', unmodeled('MissingAuthenticationToken', 403), 'MissingAuthenticationToken', false],
    ['common InvalidClientTokenId', unmodeled('InvalidClientTokenId', 403), 'InvalidClientTokenId', false],
    ['common ExpiredToken', unmodeled('ExpiredToken', 403), 'ExpiredToken', true],
    ['an unknown 4xx code', unmodeled('SomethingNew', 400), 'SomethingNew', false],
    ['an unknown 5xx code', unmodeled('SomethingNew', 502), 'SomethingNew', true],
    ['an unknown 429 code', unmodeled('SomethingNew', 429), 'SomethingNew', true],
    ['a refused connection', networkError('ECONNREFUSED'), 'ECONNREFUSED', true],
    ['a reset connection', networkError('ECONNRESET'), 'ECONNRESET', true],
    ['a request timeout', Object.assign(new Error('Connection timed out after 10 ms'), { name: 'TimeoutError' }), 'TimeoutError', true],
    ['no credentials from the default chain', Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }), 'CredentialsProviderError', true],
  ])('%s', (_case, error, code, retryable) => {
    expect(classifySnsError(error)).toMatchObject({ code, retryable });
  });
});

import { describeNetworkError, displayEndpoint } from './network-error';

function errorWithCode(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code });
}

describe('describeNetworkError', () => {
  it('explains the common socket errors in words', () => {
    expect(describeNetworkError(new URL('http://127.0.0.1:8080/api/X'), errorWithCode('ECONNREFUSED'))).toBe(
      'cannot reach http://127.0.0.1:8080: connection refused',
    );
    expect(describeNetworkError('https://nowhere.invalid', errorWithCode('ENOTFOUND'))).toBe('cannot reach https://nowhere.invalid: host not found');
  });

  it('says what to do about a certificate the machine does not trust', () => {
    expect(describeNetworkError('https://gw:8443', errorWithCode('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'))).toBe(
      "cannot reach https://gw:8443: the server's certificate is not signed by a CA this machine trusts (give the CA's certificate with --ca-file or SVC_CA_FILE)",
    );
  });

  it('looks inside an AggregateError from a dual-stack connect', () => {
    const aggregate = new AggregateError([errorWithCode('ECONNREFUSED'), errorWithCode('ECONNREFUSED')], '');
    expect(describeNetworkError('http://localhost:1', aggregate)).toBe('cannot reach http://localhost:1: connection refused');
  });

  it('falls back to the error message for unknown codes', () => {
    expect(describeNetworkError('http://h:1', errorWithCode('EWEIRD', 'odd failure'))).toBe('cannot reach http://h:1: odd failure');
  });

  it('never shows user info from the URL', () => {
    expect(displayEndpoint('http://user:hunter2@h:1/x')).toBe('http://h:1');
    expect(describeNetworkError('nats://user:hunter2@n:4222', errorWithCode('CONNECTION_REFUSED'))).not.toContain('hunter2');
    expect(displayEndpoint('not a url')).toBe('the server');
  });
});

import { sqlServerConfig } from './sql-server-config';
import { isTlsVersionRefusal, withLegacyTls } from './tls-fallback';

describe('TLS: the strongest protocol the server supports', () => {
  const options = { encrypt: true, connectTimeoutMs: 1000 };

  it('offers TLS 1.2 and newer first', () => {
    expect(sqlServerConfig('Server=db,1433;Database=x;User ID=u;Password=p', options).options?.cryptoCredentialsDetails).toEqual({ minVersion: 'TLSv1.2' });
  });

  it('offers TLS 1.0 and 1.1 as well on the second try, keeping everything else', () => {
    const modern = sqlServerConfig('Server=db,1433;Database=x;User ID=u;Password=p;TrustServerCertificate=false', options);
    const legacy = withLegacyTls(modern);
    expect(legacy.options?.cryptoCredentialsDetails).toEqual({ minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' });
    expect({ ...legacy, options: { ...legacy.options, cryptoCredentialsDetails: undefined } }).toEqual({ ...modern, options: { ...modern.options, cryptoCredentialsDetails: undefined } });
    expect(legacy.options?.encrypt).toBe(true);
    expect(legacy.options?.trustServerCertificate).toBe(false);
  });

  it.each<[string, unknown]>([
    ['an OpenSSL code', Object.assign(new Error('x'), { code: 'ERR_SSL_UNSUPPORTED_PROTOCOL' })],
    ['mssql wrapping tedious wrapping the socket error', { code: 'ESOCKET', message: 'Failed to connect', originalError: { message: 'x', cause: { code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' } } }],
    ['the message only', new Error('write EPROTO 40B8:error:0A000102:SSL routines::unsupported protocol')],
  ])('retries with legacy TLS after %s', (_case, error) => {
    expect(isTlsVersionRefusal(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })],
    ['a failed login', Object.assign(new Error('Login failed for user'), { code: 'ELOGIN' })],
    ['a certificate the client does not trust', new Error('self-signed certificate in certificate chain')],
    ['nothing', undefined],
  ])('does not retry after %s', (_case, error) => {
    expect(isTlsVersionRefusal(error)).toBe(false);
  });
});

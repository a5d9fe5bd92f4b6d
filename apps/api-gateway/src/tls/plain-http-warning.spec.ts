import { plainHttpWarning } from './plain-http-warning';

describe('plainHttpWarning', () => {
  it.each(['0.0.0.0', '::', '10.0.0.5', 'gateway.internal'])('warns when plain HTTP listens on %s', (host) => {
    const warning = plainHttpWarning(host);
    expect(warning).toContain(`plain HTTP on ${host}`);
    expect(warning).toContain('database passwords and S3 keys, travel unencrypted');
    expect(warning).toContain('TLS_CERT_FILE and TLS_KEY_FILE');
  });

  it.each(['127.0.0.1', '::1', 'localhost'])('says nothing on loopback (%s)', (host) => {
    expect(plainHttpWarning(host)).toBeNull();
  });
});

import { DEFAULT_EMBEDDED_S3_PORT, LOCAL_DEFAULTS, localEnvironment } from './local-settings';

describe('localEnvironment', () => {
  it('fills development defaults and reports which', () => {
    const { env, defaulted, embeddedS3Port } = localEnvironment({ PORT: '9000' });
    expect(env['PORT']).toBe('9000');
    expect(env['SVC_MASTER_KEY']).toBe(LOCAL_DEFAULTS['SVC_MASTER_KEY']);
    expect(defaulted).toContain('SVC_MASTER_KEY');
    expect(defaulted).not.toContain('PORT');
    expect(env['NODE_OPTIONS']).toContain('--openssl-legacy-provider');
    expect(embeddedS3Port).toBe(DEFAULT_EMBEDDED_S3_PORT);
    expect(env['S3_ENDPOINT']).toBe(`http://127.0.0.1:${DEFAULT_EMBEDDED_S3_PORT}`);
  });

  it('never overrides what the user set', () => {
    const { env, defaulted, embeddedS3Port } = localEnvironment({ S3_ENDPOINT: 'http://minio:9000', SVC_MASTER_KEY: 'b'.repeat(64) });
    expect(env['SVC_MASTER_KEY']).toBe('b'.repeat(64));
    expect(env['S3_ENDPOINT']).toBe('http://minio:9000');
    expect(embeddedS3Port).toBeNull();
    expect(defaulted).not.toContain('S3_ENDPOINT');
  });

  it('moves the embedded S3 server to EMBEDDED_S3_PORT', () => {
    const { env, embeddedS3Port } = localEnvironment({ EMBEDDED_S3_PORT: '4999' });
    expect(embeddedS3Port).toBe(4999);
    expect(env['S3_ENDPOINT']).toBe('http://127.0.0.1:4999');
  });

  it('uses a master key of 32 bytes', () => {
    expect(Buffer.from(LOCAL_DEFAULTS['SVC_MASTER_KEY'] ?? '', 'hex')).toHaveLength(32);
  });
});

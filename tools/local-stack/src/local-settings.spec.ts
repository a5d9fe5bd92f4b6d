import { LOCAL_DEFAULTS, localEnvironment, usesEmbeddedS3 } from './local-settings';

describe('localEnvironment', () => {
  it('fills development defaults and reports which', () => {
    const { env, defaulted } = localEnvironment({ PORT: '9000' });
    expect(env['PORT']).toBe('9000');
    expect(env['SVC_MASTER_KEY']).toBe(LOCAL_DEFAULTS['SVC_MASTER_KEY']);
    expect(defaulted).toContain('SVC_MASTER_KEY');
    expect(defaulted).not.toContain('PORT');
    expect(env['NODE_OPTIONS']).toContain('--openssl-legacy-provider');
    expect(usesEmbeddedS3(env)).toBe(true);
  });

  it('never overrides what the user set', () => {
    const { env, defaulted } = localEnvironment({ S3_ENDPOINT: 'http://minio:9000', SVC_MASTER_KEY: 'b'.repeat(64) });
    expect(env['SVC_MASTER_KEY']).toBe('b'.repeat(64));
    expect(usesEmbeddedS3(env)).toBe(false);
    expect(defaulted).not.toContain('S3_ENDPOINT');
  });

  it('uses a master key of 32 bytes', () => {
    expect(Buffer.from(LOCAL_DEFAULTS['SVC_MASTER_KEY'] ?? '', 'hex')).toHaveLength(32);
  });
});

import {
  DEFAULT_EMBEDDED_S3_PORT,
  DEFAULT_LOCAL_NATS_PORT,
  LOCAL_DEFAULTS,
  apiTransportNotice,
  developmentKeyProblem,
  liveDemoEnvironment,
  localEnvironment,
  usesDevelopmentKey,
  withDevelopmentKey,
  withEmbeddedS3Account,
} from './local-settings';

const INSTALLATION_KEY = { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'this-installation-own-random-secret-0123' };

describe('localEnvironment', () => {
  it('fills development defaults and reports which', () => {
    const { env, defaulted, embeddedS3Port } = localEnvironment({ PORT: '9000' });
    expect(env['PORT']).toBe('9000');
    expect(env['SVC_MASTER_KEY']).toBe(LOCAL_DEFAULTS['SVC_MASTER_KEY']);
    expect(defaulted).toContain('SVC_MASTER_KEY');
    expect(defaulted).not.toContain('PORT');
    // Only the embedded S3 server's own process needs the legacy OpenSSL provider (embedded-s3.ts), no service does.
    expect(env['NODE_OPTIONS'] ?? '').not.toContain('--openssl-legacy-provider');
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

  it('asks the embedded S3 server for STS too (IAMRole), unless the user names an STS or an S3 server of their own', () => {
    const embedded = localEnvironment({ EMBEDDED_S3_PORT: '4999' });
    expect(embedded.env['STS_ENDPOINT']).toBe('http://127.0.0.1:4999');
    expect(embedded.defaulted).toContain('STS_ENDPOINT');

    for (const own of [{ STS_ENDPOINT: 'https://sts.vpce.example:443' }, { STS_ENDPOINT_FILE: '/run/secrets/sts' }]) {
      const local = localEnvironment(own);
      expect(local.env['STS_ENDPOINT']).toBe(own.STS_ENDPOINT);
      expect(local.defaulted).not.toContain('STS_ENDPOINT');
      expect(local.embeddedS3Port).toBe(DEFAULT_EMBEDDED_S3_PORT);
    }
    const minio = localEnvironment({ S3_ENDPOINT: 'http://minio:9000', SVC_MASTER_KEY: 'b'.repeat(64) });
    expect(minio.env['STS_ENDPOINT']).toBeUndefined();
    expect(minio.defaulted).not.toContain('STS_ENDPOINT');
  });

  it('moves the embedded S3 server to EMBEDDED_S3_PORT', () => {
    const { env, embeddedS3Port } = localEnvironment({ EMBEDDED_S3_PORT: '4999' });
    expect(embeddedS3Port).toBe(4999);
    expect(env['S3_ENDPOINT']).toBe('http://127.0.0.1:4999');
  });

  it('keeps the plain-HTTP API on loopback unless HOST says otherwise, and says which', () => {
    const local = localEnvironment({});
    expect(local.env['HOST']).toBe('127.0.0.1');
    expect(apiTransportNotice(local.env)).toBe(
      'The API is plain HTTP on 127.0.0.1 only, for development; to serve other machines, give the api-gateway TLS_CERT_FILE and TLS_KEY_FILE (HTTPS).',
    );
    const everywhere = localEnvironment({ HOST: '0.0.0.0', SVC_BOOTSTRAP_ACCESS_KEY_ID: 'MYKEY', SVC_BOOTSTRAP_SECRET_KEY: 'x'.repeat(40) });
    expect(everywhere.defaulted).not.toContain('HOST');
    expect(apiTransportNotice(everywhere.env)).toMatch(/^Warning: the API is plain HTTP on 0\.0\.0\.0, reachable from other machines/);
  });

  it('uses a master key of 32 bytes', () => {
    expect(Buffer.from(LOCAL_DEFAULTS['SVC_MASTER_KEY'] ?? '', 'hex')).toHaveLength(32);
  });

  it('says development to the registry (which then accepts the public defaults), whatever else is set', () => {
    expect(localEnvironment({}).env['SVC_DEVELOPMENT']).toBe('true');
    expect(localEnvironment({ SVC_MASTER_KEY: 'b'.repeat(64), SVC_DEVELOPMENT: 'false' }).env['SVC_DEVELOPMENT']).toBe('true');
  });
});

describe("the installation's development key (issue 36: its secret was public, so any user of the machine was admin)", () => {
  it('is no public default: the bootstrap key is left to the installation key file', () => {
    expect(Object.keys(LOCAL_DEFAULTS)).not.toEqual(expect.arrayContaining(['SVC_BOOTSTRAP_SECRET_KEY']));
    expect(Object.values(LOCAL_DEFAULTS)).not.toContain('local-development-secret-key-change-me');
    const local = localEnvironment({});
    expect(local.env['SVC_BOOTSTRAP_SECRET_KEY']).toBeUndefined();
    expect(local.defaulted).toEqual(expect.arrayContaining(['SVC_BOOTSTRAP_ACCESS_KEY_ID', 'SVC_BOOTSTRAP_SECRET_KEY']));
  });

  it('is used only when the user gives no bootstrap setting, empty ones counting as none', () => {
    expect(usesDevelopmentKey(localEnvironment({}))).toBe(true);
    expect(usesDevelopmentKey(localEnvironment({ SVC_BOOTSTRAP_ACCESS_KEY_ID: '', SVC_BOOTSTRAP_SECRET_KEY: '' }))).toBe(true);
    expect(usesDevelopmentKey(localEnvironment({ SVC_BOOTSTRAP_ACCESS_KEY_ID: 'MYKEY', SVC_BOOTSTRAP_SECRET_KEY: 'x'.repeat(40) }))).toBe(false);
    expect(usesDevelopmentKey(localEnvironment({ SVC_BOOTSTRAP_SECRET_KEY: 'x'.repeat(40) }))).toBe(false);
  });

  it('becomes the registry bootstrap key', () => {
    expect(withDevelopmentKey(localEnvironment({}).env, INSTALLATION_KEY)).toMatchObject({
      SVC_BOOTSTRAP_ACCESS_KEY_ID: 'SVCLOCALDEVELOPMENT',
      SVC_BOOTSTRAP_SECRET_KEY: INSTALLATION_KEY.secretKey,
    });
  });
});

describe('developmentKeyProblem', () => {
  const ownKey = { SVC_BOOTSTRAP_ACCESS_KEY_ID: 'MYKEY', SVC_BOOTSTRAP_SECRET_KEY: 'my-own-secret-0123456789abcdefghij' };

  it.each(['0.0.0.0', '::', '192.168.1.20', 'svc.example.com'])('refuses HOST=%s while the development key is in use, naming HOST and the ways out', (host) => {
    expect(developmentKeyProblem(localEnvironment({ HOST: host }))).toBe(
      `HOST is ${host}, not loopback: other machines would reach an API that npm start's development access key (allowed everything) opens. ` +
        'Unset HOST (or set it to 127.0.0.1) to keep the API on this machine, or give SVC_BOOTSTRAP_ACCESS_KEY_ID, SVC_BOOTSTRAP_SECRET_KEY ' +
        'and SVC_MASTER_KEY of your own (and TLS_CERT_FILE and TLS_KEY_FILE for HTTPS)',
    );
  });

  it('accepts a loopback HOST on the development key, and any HOST with a key and a master key of the user own', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect(developmentKeyProblem(localEnvironment({ HOST: host }))).toBeNull();
    expect(developmentKeyProblem(localEnvironment({ ...ownKey, SVC_MASTER_KEY: 'b'.repeat(64), HOST: '0.0.0.0' }))).toBeNull();
  });

  it('accepts the development defaults, and an own key with an own master key', () => {
    expect(developmentKeyProblem(localEnvironment({}))).toBeNull();
    expect(developmentKeyProblem(localEnvironment({ SVC_MASTER_KEY: 'b'.repeat(64) }))).toBeNull();
    expect(developmentKeyProblem(localEnvironment({ ...ownKey, SVC_MASTER_KEY: 'b'.repeat(64) }))).toBeNull();
  });

  it('refuses an own bootstrap key under the public development master key, telling to set SVC_MASTER_KEY', () => {
    expect(developmentKeyProblem(localEnvironment(ownKey))).toMatch(
      /^SVC_BOOTSTRAP_ACCESS_KEY_ID and SVC_BOOTSTRAP_SECRET_KEY are your own, but SVC_MASTER_KEY is not set .*: set SVC_MASTER_KEY to a key of your own/,
    );
  });

  it('refuses half an own bootstrap key: the other half would be the development key', () => {
    expect(developmentKeyProblem(localEnvironment({ SVC_BOOTSTRAP_ACCESS_KEY_ID: 'MYKEY', SVC_MASTER_KEY: 'b'.repeat(64) }))).toBe(
      'SVC_BOOTSTRAP_ACCESS_KEY_ID is set but SVC_BOOTSTRAP_SECRET_KEY is not: give both, or neither for the development key',
    );
    expect(developmentKeyProblem(localEnvironment({ SVC_BOOTSTRAP_SECRET_KEY: 'x'.repeat(40) }))).toMatch(/^SVC_BOOTSTRAP_SECRET_KEY is set but SVC_BOOTSTRAP_ACCESS_KEY_ID is not/);
  });
});

describe('liveDemoEnvironment', () => {
  const local = localEnvironment({});

  it('runs the demo on the embedded defaults, signing with the development key on the stack own port', () => {
    expect(liveDemoEnvironment({ ...local, env: withDevelopmentKey(local.env, INSTALLATION_KEY) })).toMatchObject({
      SVC_ENDPOINT: 'http://127.0.0.1:8080',
      SVC_ACCESS_KEY_ID: 'SVCLOCALDEVELOPMENT',
      SVC_SECRET_ACCESS_KEY: INSTALLATION_KEY.secretKey,
      DEMO_POSTGRES_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
    });
  });

  it('does not run with SVC_DEMO=off, nor with a key of the user own unless SVC_DEMO=on', () => {
    expect(liveDemoEnvironment(localEnvironment({ SVC_DEMO: 'off' }))).toBeNull();
    const ownKey = localEnvironment({ SVC_BOOTSTRAP_ACCESS_KEY_ID: 'MYKEY', SVC_BOOTSTRAP_SECRET_KEY: 'my-secret', SVC_MASTER_KEY: 'b'.repeat(64), DATABASE_URL: 'postgres://u:pw@db:5433/control' });
    expect(liveDemoEnvironment(ownKey)).toBeNull();
    expect(liveDemoEnvironment({ ...ownKey, env: { ...ownKey.env, SVC_DEMO: 'on' } })).toMatchObject({
      SVC_ACCESS_KEY_ID: 'MYKEY',
      DEMO_POSTGRES_URL: 'postgres://u:pw@db:5433/postgres',
    });
  });
});

describe('withEmbeddedS3Account', () => {
  it('has the services sign with the installation account of the embedded S3 server, the only one it knows', () => {
    const { env, defaulted } = localEnvironment({ S3_ACCESS_KEY_ID: 'SOMETHING-ELSE' });
    expect(defaulted).not.toContain('S3_ACCESS_KEY_ID');
    expect(withEmbeddedS3Account(env, { accessKeyId: 'SVCLOCAL0123456789AB', secretAccessKey: 'installation-secret' })).toMatchObject({
      S3_ACCESS_KEY_ID: 'SVCLOCAL0123456789AB',
      S3_SECRET_ACCESS_KEY: 'installation-secret',
      S3_ENDPOINT: `http://127.0.0.1:${DEFAULT_EMBEDDED_S3_PORT}`,
    });
  });

  it('leaves no public S3 keys among the development defaults', () => {
    expect(Object.keys(LOCAL_DEFAULTS)).not.toEqual(expect.arrayContaining(['S3_ACCESS_KEY_ID']));
    expect(Object.values(LOCAL_DEFAULTS)).not.toContain('S3RVER');
  });
});

describe("npm start's own bus (issue 36: the embedded default was an open NATS anyone on the machine could drive)", () => {
  it('is run when NATS_URL is unset, on loopback beside the 4222 of a server the user runs', () => {
    for (const base of [{}, { NATS_URL: '' }]) {
      const { env, ownNats, defaulted } = localEnvironment(base);
      expect(ownNats).toEqual({ port: DEFAULT_LOCAL_NATS_PORT, ignored: [] });
      expect(DEFAULT_LOCAL_NATS_PORT).not.toBe(4222);
      expect(env['NATS_URL']).toBe(`nats://127.0.0.1:${DEFAULT_LOCAL_NATS_PORT}`);
      expect(defaulted).toContain('NATS_URL');
    }
    expect(localEnvironment({ LOCAL_NATS_PORT: '4999' })).toMatchObject({ ownNats: { port: 4999 }, env: { NATS_URL: 'nats://127.0.0.1:4999' } });
  });

  it('is not run when NATS_URL names a server: that one is used with the user NATS settings, as before', () => {
    const seed = `SU${'A'.repeat(56)}`;
    const { env, ownNats, defaulted } = localEnvironment({ NATS_URL: 'nats://127.0.0.1:4222', NATS_NKEY_SEED: seed, LOCAL_NATS_PORT: '4999' });
    expect(ownNats).toBeNull();
    expect(env['NATS_URL']).toBe('nats://127.0.0.1:4222');
    expect(env['NATS_NKEY_SEED']).toBe(seed);
    expect(defaulted).not.toContain('NATS_URL');
  });

  it('gives the services none of the NATS client settings meant for a server of the user, and says which it left out', () => {
    const { env, ownNats } = localEnvironment({ NATS_USER: 'me', NATS_PASSWORD: 'hunter2', NATS_CA_FILE: '/etc/ca.pem', NATS_CREDS: '' });
    expect(ownNats?.ignored).toEqual(['NATS_USER', 'NATS_PASSWORD', 'NATS_CA_FILE']);
    for (const name of ['NATS_USER', 'NATS_PASSWORD', 'NATS_CA_FILE', 'NATS_CREDS']) expect(env[name]).toBeUndefined();
  });

  it.each(['0', '65536', 'abc', '4322.5'])('refuses LOCAL_NATS_PORT=%s, naming the setting', (port) => {
    expect(() => localEnvironment({ LOCAL_NATS_PORT: port })).toThrow(`LOCAL_NATS_PORT must be a TCP port number (1 to 65535), got "${port}"`);
  });
});

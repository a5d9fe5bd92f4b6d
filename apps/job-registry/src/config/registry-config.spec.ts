import { randomBytes } from 'node:crypto';
import { ConfigError, DEFAULT_DATABASE_URL, DEVELOPMENT_MASTER_KEY } from '@svc/config';
import { readRegistryConfig } from './registry-config';

const masterKey = randomBytes(32);
const workerKey = randomBytes(32).toString('hex');
const previousKeys = [randomBytes(32), randomBytes(32)];
const adminSecret = 'admin-secret-0123456789abcdefghij';

function problemsOf(env: Record<string, string>): string[] {
  try {
    readRegistryConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readRegistryConfig', () => {
  it('applies defaults around the two required settings', () => {
    const config = readRegistryConfig({ SVC_MASTER_KEY: masterKey.toString('hex'), SVC_WORKER_KEY: workerKey });
    expect(config).toMatchObject({
      databaseUrl: DEFAULT_DATABASE_URL,
      nats: { servers: ['nats://127.0.0.1:4222'], streamReplicas: 1 },
      bootstrapAccessKey: null,
      region: 'us-east-1',
      reachabilityTimeoutMs: 10000,
      logLevel: 'info',
      s3: { allowBucketCreation: false },
    });
    expect(config.masterKey.equals(masterKey)).toBe(true);
    expect(config.previousMasterKeys).toEqual([]);
  });

  it('reads every setting', () => {
    const config = readRegistryConfig({
      SVC_MASTER_KEY: masterKey.toString('base64'),
      SVC_WORKER_KEY: workerKey,
      DATABASE_URL: 'postgresql://svc:pw@db:5432/control',
      NATS_URL: 'nats://nats:4222',
      SVC_BOOTSTRAP_ACCESS_KEY_ID: 'SVCADMIN',
      SVC_BOOTSTRAP_SECRET_KEY: adminSecret,
      SVC_MASTER_KEY_PREVIOUS: ` ${previousKeys[0]?.toString('hex')} , ${previousKeys[1]?.toString('base64')}`,
      SVC_REGION: 'eu-west-1',
      S3_ENDPOINT: 'http://127.0.0.1:4569',
      STS_ENDPOINT: 'https://vpce-1.sts.eu-west-1.vpce.amazonaws.com',
      REACHABILITY_TIMEOUT_MS: '2500',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://svc:pw@db:5432/control',
      nats: { servers: ['nats://nats:4222'] },
      bootstrapAccessKey: { accessKeyId: 'SVCADMIN', secretKey: adminSecret },
      previousMasterKeys: previousKeys,
      region: 'eu-west-1',
      s3: { endpoint: 'http://127.0.0.1:4569', stsEndpoint: 'https://vpce-1.sts.eu-west-1.vpce.amazonaws.com', allowBucketCreation: true },
      reachabilityTimeoutMs: 2500,
      logLevel: 'debug',
    });
  });

  it('reports every problem at once without echoing secrets', () => {
    const problems = problemsOf({
      SVC_MASTER_KEY: 'not-a-key-but-secret-looking',
      SVC_WORKER_KEY: 'a-worker-key-but-secret-looking',
      DATABASE_URL: 'mysql://u:db-secret@h/x',
      SVC_BOOTSTRAP_SECRET_KEY: 'lonely-secret',
      REACHABILITY_TIMEOUT_MS: 'soon',
      LOG_LEVEL: 'loud',
    });
    expect(problems).toEqual([
      'DATABASE_URL: must be a postgres or postgresql URL',
      'SVC_WORKER_KEY: must be 64 hexadecimal characters or the base64 encoding of 32 bytes, the same in job-registry and every pipeline worker',
      "REACHABILITY_TIMEOUT_MS: must be an integer, got 'soon'",
      'SVC_MASTER_KEY: master key must be 64 hexadecimal characters or the base64 encoding of 32 bytes',
      'SVC_BOOTSTRAP_ACCESS_KEY_ID and SVC_BOOTSTRAP_SECRET_KEY: give both or neither',
      "SVC_BOOTSTRAP_SECRET_KEY: must be at least 32 characters (it is an admin key's secret)",
      'LOG_LEVEL: must be one of debug, info, warn, error',
    ]);
    const text = problems.join('\n');
    for (const secret of ['not-a-key-but-secret-looking', 'a-worker-key-but-secret-looking', 'db-secret', 'lonely-secret']) expect(text).not.toContain(secret);
  });

  it('requires the master key and the worker key', () => {
    expect(problemsOf({})).toEqual(['SVC_MASTER_KEY: is required', 'SVC_WORKER_KEY: is required']);
  });

  it('refuses a worker key equal to the master key: the workers hold one, only the registry the other', () => {
    expect(problemsOf({ SVC_MASTER_KEY: masterKey.toString('hex'), SVC_WORKER_KEY: masterKey.toString('base64') })).toEqual([
      'SVC_WORKER_KEY: must differ from SVC_MASTER_KEY (the workers hold it; the master key stays with the registry)',
    ]);
  });

  describe('outside development (SVC_DEVELOPMENT unset: what production is)', () => {
    const base = { SVC_MASTER_KEY: masterKey.toString('hex'), SVC_WORKER_KEY: workerKey };

    it('refuses the public development master key of `npm start`, in any encoding, naming the field', () => {
      for (const written of [DEVELOPMENT_MASTER_KEY, Buffer.from(DEVELOPMENT_MASTER_KEY, 'hex').toString('base64')]) {
        const problems = problemsOf({ ...base, SVC_MASTER_KEY: written });
        expect(problems).toHaveLength(1);
        expect(problems[0]).toMatch(/^SVC_MASTER_KEY: is the public development key of `npm start`/);
        expect(problems[0]).not.toContain(written);
      }
      expect(problemsOf({ ...base, SVC_MASTER_KEY: DEVELOPMENT_MASTER_KEY, SVC_DEVELOPMENT: 'false' })).toHaveLength(1);
    });

    it('accepts the development master key as a previous key, so that what it sealed can be rotated onto a real key', () => {
      const config = readRegistryConfig({ ...base, SVC_MASTER_KEY_PREVIOUS: DEVELOPMENT_MASTER_KEY });
      expect(config.previousMasterKeys).toEqual([Buffer.from(DEVELOPMENT_MASTER_KEY, 'hex')]);
    });

    it('refuses a bootstrap secret shorter than 32 characters, naming the field and not the secret', () => {
      const shortSecret = 'x'.repeat(31);
      expect(problemsOf({ ...base, SVC_BOOTSTRAP_ACCESS_KEY_ID: 'SVCADMIN', SVC_BOOTSTRAP_SECRET_KEY: shortSecret })).toEqual([
        "SVC_BOOTSTRAP_SECRET_KEY: must be at least 32 characters (it is an admin key's secret)",
      ]);
      const config = readRegistryConfig({ ...base, SVC_BOOTSTRAP_ACCESS_KEY_ID: 'SVCADMIN', SVC_BOOTSTRAP_SECRET_KEY: 'x'.repeat(32) });
      expect(config.bootstrapAccessKey?.secretKey).toBe('x'.repeat(32));
    });

    it('names a bad previous key by its entry, without echoing it', () => {
      const problems = problemsOf({ ...base, SVC_MASTER_KEY_PREVIOUS: `${previousKeys[0]?.toString('hex')},not-a-key-but-secret-looking` });
      expect(problems).toEqual(['SVC_MASTER_KEY_PREVIOUS (entry 2): master key must be 64 hexadecimal characters or the base64 encoding of 32 bytes']);
    });
  });

  it('under `npm start` (SVC_DEVELOPMENT=true) allows the development master key and a short bootstrap secret', () => {
    const config = readRegistryConfig({
      SVC_DEVELOPMENT: 'true',
      SVC_MASTER_KEY: DEVELOPMENT_MASTER_KEY,
      SVC_WORKER_KEY: workerKey,
      SVC_BOOTSTRAP_ACCESS_KEY_ID: 'SVCDEV',
      SVC_BOOTSTRAP_SECRET_KEY: 'short',
    });
    expect(config.masterKey.toString('hex')).toBe(DEVELOPMENT_MASTER_KEY);
    expect(config.bootstrapAccessKey).toEqual({ accessKeyId: 'SVCDEV', secretKey: 'short' });
  });
});

import { randomBytes } from 'node:crypto';
import { ConfigError, DEFAULT_DATABASE_URL } from '@svc/config';
import { readRegistryConfig } from './registry-config';

const masterKey = randomBytes(32);
const workerKey = randomBytes(32).toString('hex');

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
  });

  it('reads every setting', () => {
    const config = readRegistryConfig({
      SVC_MASTER_KEY: masterKey.toString('base64'),
      SVC_WORKER_KEY: workerKey,
      DATABASE_URL: 'postgresql://svc:pw@db:5432/control',
      NATS_URL: 'nats://nats:4222',
      SVC_BOOTSTRAP_ACCESS_KEY_ID: 'SVCADMIN',
      SVC_BOOTSTRAP_SECRET_KEY: 'admin-secret',
      SVC_REGION: 'eu-west-1',
      S3_ENDPOINT: 'http://127.0.0.1:4569',
      REACHABILITY_TIMEOUT_MS: '2500',
      LOG_LEVEL: 'DEBUG',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgresql://svc:pw@db:5432/control',
      nats: { servers: ['nats://nats:4222'] },
      bootstrapAccessKey: { accessKeyId: 'SVCADMIN', secretKey: 'admin-secret' },
      region: 'eu-west-1',
      s3: { endpoint: 'http://127.0.0.1:4569', allowBucketCreation: true },
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
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, EnvReader } from './env-reader';
import { readNatsSecurity } from './nats-security';

const SEED = 'SUADLPANO74UOPSI6TAIQXYEWGDIJJIURY5AVQWELKXJEQNAU66T2QECA4';
const dir = mkdtempSync(join(tmpdir(), 'nats-security-spec-'));
const caFile = join(dir, 'ca.pem');
writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const keyFile = join(dir, 'key.pem');
writeFileSync(keyFile, '-----BEGIN PRIVATE KEY-----\nsecret-key-bytes\n-----END PRIVATE KEY-----\n');
const credsFile = join(dir, 'user.creds');
writeFileSync(credsFile, '-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n');

function read(environment: Record<string, string>, servers = ['nats://127.0.0.1:4222']) {
  const env = new EnvReader(environment);
  const security = readNatsSecurity(env, servers);
  env.done();
  return security;
}

function problemsOf(environment: Record<string, string>, servers = ['nats://127.0.0.1:4222']): string[] {
  try {
    read(environment, servers);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readNatsSecurity', () => {
  it('is empty for an open development server', () => {
    expect(read({})).toEqual({});
  });

  it('reads one way to authenticate: user and password, an nkey seed, or a credentials file', () => {
    expect(read({ NATS_USER: 'loader', NATS_PASSWORD: 'pw' }).auth).toEqual({ kind: 'user-password', user: 'loader', password: 'pw' });
    expect(read({ NATS_NKEY_SEED: SEED }).auth).toEqual({ kind: 'nkey', seed: SEED });
    expect(read({ NATS_CREDS: credsFile }).auth).toEqual({ kind: 'creds', creds: expect.stringContaining('NATS USER JWT') as unknown });
  });

  it('refuses two ways at once, and a half of user/password, naming the settings', () => {
    expect(problemsOf({ NATS_USER: 'loader', NATS_PASSWORD: 'pw', NATS_NKEY_SEED: SEED })).toEqual([
      'NATS_CREDS, NATS_USER/NATS_PASSWORD, NATS_NKEY_SEED: set only one way to authenticate, got NATS_USER/NATS_PASSWORD and NATS_NKEY_SEED',
    ]);
    expect(problemsOf({ NATS_PASSWORD: 'pw' })).toEqual(['NATS_USER: is required with NATS_PASSWORD']);
  });

  it('never echoes a secret in a problem', () => {
    const badSeed = 'SUnot-a-seed-but-a-secret-0123456789';
    const problems = problemsOf({ NATS_NKEY_SEED: badSeed }).join('\n');
    expect(problems).toBe("NATS_NKEY_SEED: must be a user nkey seed (58 characters starting with 'SU')");
    expect(problems).not.toContain('secret');
    expect(problemsOf({ NATS_CREDS: keyFile }).join('\n')).not.toContain('secret-key-bytes');
    expect(problemsOf({ NATS_CA_FILE: keyFile }).join('\n')).not.toContain('secret-key-bytes');
  });

  it('reads TLS files once, at start: the CA, and a client certificate with its key', () => {
    const security = read({ NATS_CA_FILE: caFile, NATS_CERT_FILE: caFile, NATS_KEY_FILE: keyFile }, ['tls://nats:4222']);
    expect(security.tls).toEqual({ ca: expect.stringContaining('BEGIN CERTIFICATE') as unknown, cert: expect.stringContaining('BEGIN CERTIFICATE') as unknown, key: expect.stringContaining('PRIVATE KEY') as unknown });
  });

  it('asks for TLS with the system CAs for a tls:// server without a CA file', () => {
    expect(read({}, ['tls://nats.example:4222']).tls).toEqual({});
  });

  it('refuses a missing file, a certificate without its key, and a file that is not the PEM expected', () => {
    expect(problemsOf({ NATS_CA_FILE: join(dir, 'missing.pem') })).toEqual(['NATS_CA_FILE: cannot read the file (ENOENT)']);
    expect(problemsOf({ NATS_CERT_FILE: caFile })).toContain('NATS_KEY_FILE: is required with NATS_CERT_FILE (a client certificate needs both)');
    expect(problemsOf({ NATS_CA_FILE: keyFile })).toEqual(['NATS_CA_FILE: is not a PEM file of the expected kind']);
  });
});

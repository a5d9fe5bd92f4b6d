import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedS3CredentialsPath, loadOrCreateS3Credentials, readS3Credentials } from './credentials-file';

describe('the embedded S3 server credentials file', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'svc-s3-credentials-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('lives in tmp/ of the checkout unless EMBEDDED_S3_CREDENTIALS_FILE names another file', () => {
    expect(embeddedS3CredentialsPath({}, '/repo')).toBe('/repo/tmp/embedded-s3-credentials.json');
    expect(embeddedS3CredentialsPath({ EMBEDDED_S3_CREDENTIALS_FILE: '' }, '/repo')).toBe('/repo/tmp/embedded-s3-credentials.json');
    expect(embeddedS3CredentialsPath({ EMBEDDED_S3_CREDENTIALS_FILE: '/home/me/s3.json' }, '/repo')).toBe('/home/me/s3.json');
  });

  it('is created on first use with random credentials only its owner can read, then reused', () => {
    const path = join(directory, 'nested', 'credentials.json');
    const first = loadOrCreateS3Credentials(path);
    expect(first.accessKeyId).toMatch(/^SVCLOCAL[0-9A-F]{12}$/);
    expect(first.secretAccessKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loadOrCreateS3Credentials(path)).toEqual(first);
    expect(readS3Credentials(path)).toEqual(first);

    const other = join(directory, 'other.json');
    expect(loadOrCreateS3Credentials(other)).not.toEqual(first);
  });

  it('is refused when others can read it, naming the file and the fix', () => {
    const path = join(directory, 'credentials.json');
    loadOrCreateS3Credentials(path);
    chmodSync(path, 0o644);
    expect(() => readS3Credentials(path)).toThrow(`${path} can be read by other users; make it yours alone (chmod 600 ${path})`);
    expect(() => loadOrCreateS3Credentials(path)).toThrow(/can be read by other users/);
  });

  it('says that npm start writes it when it is missing, and what a broken one must hold, without echoing values', () => {
    const path = join(directory, 'credentials.json');
    expect(() => readS3Credentials(path)).toThrow(`${path} does not exist: \`npm start\` writes the embedded S3 server's credentials there on its first run`);
    writeFileSync(path, JSON.stringify({ accessKeyId: 'AKID', secretAccessKey: '' }), { mode: 0o600 });
    expect(() => readS3Credentials(path)).toThrow(`${path} must hold a JSON object with non-empty strings accessKeyId and secretAccessKey`);
    writeFileSync(path, 'hunter2', { mode: 0o600 });
    let thrown: unknown;
    try {
      readS3Credentials(path);
    } catch (error) {
      thrown = error;
    }
    expect(String(thrown)).toContain('is not JSON');
    expect(String(thrown)).not.toContain('hunter2');
    expect(readFileSync(path, 'utf8')).toBe('hunter2');
  });
});

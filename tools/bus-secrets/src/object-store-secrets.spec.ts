import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomAlphanumeric, writeObjectStoreSecrets } from './object-store-secrets';

function envFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('writeObjectStoreSecrets', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-object-store-secrets-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes MinIO's root account and the services' own user apart, random, readable by their owner only", () => {
    const [minio, s3] = writeObjectStoreSecrets(dir);
    expect([minio, s3]).toEqual([join(dir, 'minio.env'), join(dir, 's3.env')]);
    for (const file of [minio, s3]) expect(statSync(file ?? '').mode & 0o777).toBe(0o600);
    const root = envFile(minio ?? '');
    const service = envFile(s3 ?? '');
    expect(Object.keys(root)).toEqual(['MINIO_ROOT_USER', 'MINIO_ROOT_PASSWORD']);
    expect(Object.keys(service)).toEqual(['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']);
    // MinIO: access keys of 3 to 20 characters, secrets of 8 to 40.
    expect(root['MINIO_ROOT_USER']).toMatch(/^svc-root-[a-z0-9]{8}$/);
    expect(root['MINIO_ROOT_PASSWORD']).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(service['S3_ACCESS_KEY_ID']).toMatch(/^SVC[A-Z0-9]{17}$/);
    expect(service['S3_SECRET_ACCESS_KEY']).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(service['S3_SECRET_ACCESS_KEY']).not.toBe(root['MINIO_ROOT_PASSWORD']);

    const again = mkdtempSync(join(tmpdir(), 'svc-object-store-secrets-'));
    try {
      const [, otherS3] = writeObjectStoreSecrets(again);
      expect(envFile(otherS3 ?? '')['S3_SECRET_ACCESS_KEY']).not.toBe(service['S3_SECRET_ACCESS_KEY']);
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it('never replaces existing accounts', () => {
    const [minio] = writeObjectStoreSecrets(dir);
    const before = readFileSync(minio ?? '', 'utf8');
    expect(() => writeObjectStoreSecrets(dir)).toThrow(`${join(dir, 'minio.env')} already exists: MinIO keeps the accounts it was started with`);
    expect(readFileSync(minio ?? '', 'utf8')).toBe(before);
  });

  it('draws every character of the alphabet', () => {
    expect(new Set(randomAlphanumeric(4000, 'ab'))).toEqual(new Set(['a', 'b']));
    expect(randomAlphanumeric(33)).toHaveLength(33);
  });
});

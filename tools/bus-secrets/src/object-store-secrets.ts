import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Letters and digits only: the values go into env files and a shell, and MinIO takes at most 20 / 40 characters. */
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_AND_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LOWER_AND_DIGITS = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function randomAlphanumeric(length: number, alphabet = ALPHANUMERIC): string {
  let text = '';
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  while (text.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && text.length < length) text += alphabet[byte % alphabet.length];
    }
  }
  return text;
}

/**
 * The MinIO of docker-compose.yml: its root account (minio.env: only the minio server and the minio-init job that
 * creates the services' user read it) and the services' own user (s3.env), which minio-init limits to the
 * replication buckets. Both random, files readable by their owner only; an existing file is never replaced (MinIO
 * keeps its accounts: new values would lock the services out).
 */
export function writeObjectStoreSecrets(envDir: string): string[] {
  const minio = join(envDir, 'minio.env');
  const s3 = join(envDir, 's3.env');
  for (const file of [minio, s3]) {
    if (existsSync(file)) throw new Error(`${file} already exists: MinIO keeps the accounts it was started with; remove both files first to make new ones`);
  }
  writeFileSync(
    minio,
    [
      '# MinIO root account: for the minio server and the minio-init job only, never for a service. Secret: never commit.',
      `MINIO_ROOT_USER=svc-root-${randomAlphanumeric(8, LOWER_AND_DIGITS)}`,
      `MINIO_ROOT_PASSWORD=${randomAlphanumeric(40)}`,
      '',
    ].join('\n'),
    { mode: 0o600, flag: 'wx' },
  );
  writeFileSync(
    s3,
    [
      "# The services' MinIO user: minio-init creates it with access to the replication buckets (SVC_BUCKETS) only.",
      `S3_ACCESS_KEY_ID=SVC${randomAlphanumeric(17, UPPER_AND_DIGITS)}`,
      `S3_SECRET_ACCESS_KEY=${randomAlphanumeric(40)}`,
      '',
    ].join('\n'),
    { mode: 0o600, flag: 'wx' },
  );
  return [minio, s3];
}

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateOwnerOnlyFile, readOwnerOnlyFile, type OwnerOnlyFileKind } from '../local-keys/owner-only-file';
import type { S3Account } from './s3-signature-check';

/** Names the file of the embedded S3 server's credentials when not the default one. */
export const EMBEDDED_S3_CREDENTIALS_FILE = 'EMBEDDED_S3_CREDENTIALS_FILE';

const KIND: OwnerOnlyFileKind<keyof S3Account> = {
  holds: "the embedded S3 server's credentials",
  renewed: 'new credentials (replications that use the old ones stop working)',
  fields: ['accessKeyId', 'secretAccessKey'],
};

/** Where `npm start` keeps the embedded S3 server's credentials: `EMBEDDED_S3_CREDENTIALS_FILE`, else tmp/ of the checkout (git-ignored). */
export function embeddedS3CredentialsPath(env: Record<string, string | undefined>, repoRoot: string): string {
  const configured = env[EMBEDDED_S3_CREDENTIALS_FILE];
  return configured !== undefined && configured !== '' ? configured : join(repoRoot, 'tmp', 'embedded-s3-credentials.json');
}

/**
 * The credentials in `path`, or new random ones written there (mode 0600) when the file does not exist yet:
 * one account per installation, the same on every start, so that replications created earlier keep working.
 */
export function loadOrCreateS3Credentials(path: string): S3Account {
  return loadOrCreateOwnerOnlyFile(path, KIND, {
    accessKeyId: `SVCLOCAL${randomBytes(9).toString('hex').toUpperCase().slice(0, 12)}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  });
}

/** The credentials `npm start` wrote to `path`; errors name the file and what is wrong, never a value. */
export function readS3Credentials(path: string): S3Account {
  return readOwnerOnlyFile(path, KIND);
}

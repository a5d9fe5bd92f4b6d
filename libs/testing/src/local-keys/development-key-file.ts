import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateOwnerOnlyFile, readOwnerOnlyFile, type OwnerOnlyFileKind } from './owner-only-file';

/** Names the file of npm start's development access key when not the default one. */
export const DEVELOPMENT_KEY_FILE = 'DEVELOPMENT_KEY_FILE';

/** The id of npm start's bootstrap key; only its secret has to be unguessable. */
export const DEVELOPMENT_ACCESS_KEY_ID = 'SVCLOCALDEVELOPMENT';

/** The admin key `npm start` gives its registry as bootstrap key when the user gives none. */
export interface DevelopmentKey {
  accessKeyId: string;
  secretKey: string;
}

const KIND: OwnerOnlyFileKind<keyof DevelopmentKey> = {
  holds: 'its development access key',
  renewed: 'a new development access key',
  fields: ['accessKeyId', 'secretKey'],
};

/** `DEVELOPMENT_KEY_FILE`, else tmp/ of the checkout (git-ignored), beside the embedded S3 server's key pair. */
export function developmentKeyPath(env: Record<string, string | undefined>, repoRoot: string): string {
  const configured = env[DEVELOPMENT_KEY_FILE];
  return configured !== undefined && configured !== '' ? configured : join(repoRoot, 'tmp', 'development-key.json');
}

/**
 * The key in `path`, or a new one with a random secret written there (mode 0600) on the first start: another user of
 * the machine can neither read it nor guess it, and clients set up with it keep working across starts.
 */
export function loadOrCreateDevelopmentKey(path: string): DevelopmentKey {
  return loadOrCreateOwnerOnlyFile(path, KIND, { accessKeyId: DEVELOPMENT_ACCESS_KEY_ID, secretKey: randomBytes(30).toString('base64url') });
}

export function readDevelopmentKey(path: string): DevelopmentKey {
  return readOwnerOnlyFile(path, KIND);
}

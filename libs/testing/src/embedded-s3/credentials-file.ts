import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { S3Account } from './s3-signature-check';

/** Names the file of the embedded S3 server's credentials when not the default one. */
export const EMBEDDED_S3_CREDENTIALS_FILE = 'EMBEDDED_S3_CREDENTIALS_FILE';

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
  const generated: S3Account = {
    accessKeyId: `SVCLOCAL${randomBytes(9).toString('hex').toUpperCase().slice(0, 12)}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    // 'wx': never replaces a file another start wrote meanwhile.
    writeFileSync(path, `${JSON.stringify(generated, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    return generated;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readS3Credentials(path);
  }
}

/** The credentials `npm start` wrote to `path`; errors name the file and what is wrong, never a value. */
export function readS3Credentials(path: string): S3Account {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${path} does not exist: \`npm start\` writes the embedded S3 server's credentials there on its first run`);
    }
    throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) {
    throw new Error(`${path} can be read by other users; make it yours alone (chmod 600 ${path}) and start again`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON; delete it to have \`npm start\` write new credentials (replications that use the old ones stop working)`);
  }
  const accessKeyId = field(parsed, 'accessKeyId');
  const secretAccessKey = field(parsed, 'secretAccessKey');
  if (accessKeyId === null || secretAccessKey === null) {
    throw new Error(`${path} must hold a JSON object with non-empty strings accessKeyId and secretAccessKey`);
  }
  return { accessKeyId, secretAccessKey };
}

function field(value: unknown, name: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const entry = (value as Record<string, unknown>)[name];
  return typeof entry === 'string' && entry !== '' ? entry : null;
}

import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { randomAlphanumeric } from './object-store-secrets';

const UPPER_AND_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** What the compose file takes from `.env` (compose's own variable file): made up once, all random. */
export interface ComposeSecrets {
  postgresPassword: string;
  /** The job-registry's own PostgreSQL role (svc_registry, owner of the control database, not a superuser). */
  registryDatabasePassword: string;
  masterKey: string;
  bootstrapAccessKeyId: string;
  bootstrapSecretKey: string;
}

export function newComposeSecrets(): ComposeSecrets {
  return {
    postgresPassword: randomAlphanumeric(32),
    registryDatabasePassword: randomAlphanumeric(32),
    masterKey: randomBytes(32).toString('hex'),
    bootstrapAccessKeyId: `SVC${randomAlphanumeric(17, UPPER_AND_DIGITS)}`,
    bootstrapSecretKey: randomAlphanumeric(40),
  };
}

/**
 * Writes `.env` next to docker-compose.yml (git-ignored, owner-only), so that `docker compose up` finds every secret
 * it requires and starts with an access key (without SVC_BOOTSTRAP_* no key would exist), and its gateway answers
 * calls signed for `allowedHosts` only. An existing file is left as it is (it may hold the master key that opens what
 * is stored): returns null then.
 */
export function writeComposeEnv(file: string, secrets: ComposeSecrets = newComposeSecrets(), allowedHosts?: readonly string[]): ComposeSecrets | null {
  if (existsSync(file)) return null;
  const lines = [
    '# docker compose reads this file for the variables docker-compose.yml requires. Made by npm run secrets. Secret: never commit.',
    `POSTGRES_PASSWORD=${secrets.postgresPassword}`,
    "# The job-registry's role svc_registry: the control database's owner, not a superuser (compose's postgres-init makes it).",
    `SVC_REGISTRY_DB_PASSWORD=${secrets.registryDatabasePassword}`,
    '# Seals every stored secret: losing it loses every replication; keep a copy offline. Rotation: README, Security.',
    `SVC_MASTER_KEY=${secrets.masterKey}`,
    '# The first access key (allowed everything, every replication): sign API calls with it, then make narrower keys.',
    `SVC_BOOTSTRAP_ACCESS_KEY_ID=${secrets.bootstrapAccessKeyId}`,
    `SVC_BOOTSTRAP_SECRET_KEY=${secrets.bootstrapSecretKey}`,
    ...(allowedHosts !== undefined
      ? ['# The Host names clients sign for (the names of the gateway certificate): a call signed for another is refused.', `SVC_ALLOWED_HOSTS=${allowedHosts.join(',')}`]
      : []),
    '',
  ];
  writeFileSync(file, lines.join('\n'), { mode: 0o600, flag: 'wx' });
  return secrets;
}

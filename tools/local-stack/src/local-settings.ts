import { randomBytes } from 'node:crypto';
import type { DevelopmentKey, S3Account } from '@svc/testing';
import { DEFAULT_DATABASE_URL, DEVELOPMENT_FLAG, DEVELOPMENT_MASTER_KEY, isLoopbackHost } from '@svc/config';

/**
 * Development-only defaults for `npm start`. A value already in the environment always wins; each
 * default that is used is reported, because the master key is public and must never guard real data. The
 * bootstrap key is not among them: it is the installation's own (withDevelopmentKey).
 */
export const LOCAL_DEFAULTS: Record<string, string> = {
  DATABASE_URL: DEFAULT_DATABASE_URL,
  PORT: '8080',
  // Plain HTTP stays on this machine: bodies carry database passwords and S3 keys (issue 18).
  HOST: '127.0.0.1',
  SVC_REGION: 'us-east-1',
  SVC_MASTER_KEY: DEVELOPMENT_MASTER_KEY,
  S3_ALLOW_BUCKET_CREATION: 'true',
  // The demo's databases are on this machine's PostgreSQL (issue 19's host policy refuses loopback otherwise).
  ALLOW_LOOPBACK_TARGETS: 'true',
};

export const DEFAULT_EMBEDDED_S3_PORT = 4569;
/** Beside, not on, the 4222 of a nats-server the user (or CI) runs: npm start's own bus is another server. */
export const DEFAULT_LOCAL_NATS_PORT = 4322;

/** How a client authenticates to a NATS server the user names; npm start's own bus gives each service its identity. */
const NATS_CLIENT_SETTINGS = ['NATS_CREDS', 'NATS_USER', 'NATS_PASSWORD', 'NATS_NKEY_SEED', 'NATS_CA_FILE', 'NATS_CERT_FILE', 'NATS_KEY_FILE'];

const BOOTSTRAP_SETTINGS = ['SVC_BOOTSTRAP_ACCESS_KEY_ID', 'SVC_BOOTSTRAP_SECRET_KEY'];

export interface LocalEnvironment {
  env: Record<string, string>;
  /** Names of the variables that fell back to a development default (the bootstrap key's: to withDevelopmentKey's). */
  defaulted: string[];
  /** Port of the embedded S3 server (and STS) to start, or null when S3_ENDPOINT names another server. */
  embeddedS3Port: number | null;
  /** npm start's own nats-server (NATS_URL unset), or null when NATS_URL names the user's server. */
  ownNats: OwnNats | null;
}

export interface OwnNats {
  port: number;
  /** NATS client settings of the user's that the services do not get: they are for a server NATS_URL would name. */
  ignored: string[];
}

export function localEnvironment(base: Record<string, string | undefined>): LocalEnvironment {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  const defaulted: string[] = [];
  let embeddedS3Port: number | null = null;
  if (!env['S3_ENDPOINT']) {
    embeddedS3Port = Number(env['EMBEDDED_S3_PORT'] ?? DEFAULT_EMBEDDED_S3_PORT);
    env['S3_ENDPOINT'] = `http://127.0.0.1:${embeddedS3Port}`;
    defaulted.push('S3_ENDPOINT');
    // The embedded server also answers STS (IAMRole replications), as MinIO does; an STS of the user's own wins.
    if (!env['STS_ENDPOINT'] && !env['STS_ENDPOINT_FILE']) {
      env['STS_ENDPOINT'] = env['S3_ENDPOINT'];
      defaulted.push('STS_ENDPOINT');
    }
  }
  let ownNats: OwnNats | null = null;
  if (!env['NATS_URL']) {
    const port = portSetting(env, 'LOCAL_NATS_PORT', DEFAULT_LOCAL_NATS_PORT);
    ownNats = { port, ignored: NATS_CLIENT_SETTINGS.filter((name) => env[name] !== undefined && env[name] !== '') };
    for (const name of NATS_CLIENT_SETTINGS) delete env[name];
    env['NATS_URL'] = `nats://127.0.0.1:${port}`;
    defaulted.push('NATS_URL');
  }
  for (const [name, value] of Object.entries(LOCAL_DEFAULTS)) {
    // A setting given as a file (<NAME>_FILE, which the services read) is given: no default beside it.
    if ((env[name] === undefined || env[name] === '') && !env[`${name}_FILE`]) {
      env[name] = value;
      defaulted.push(name);
    }
  }
  for (const name of BOOTSTRAP_SETTINGS) {
    if (env[name] === undefined || env[name] === '') {
      delete env[name];
      defaulted.push(name);
    }
  }
  // Lets the registry accept the public defaults above; production never sets it.
  env[DEVELOPMENT_FLAG] = 'true';
  // Shared by the registry and the workers of this run only: a fresh one each start, never a public default.
  if (!env['SVC_WORKER_KEY'] && !env['SVC_WORKER_KEY_FILE']) env['SVC_WORKER_KEY'] = randomBytes(32).toString('hex');
  return { env, defaulted, embeddedS3Port, ownNats };
}

function portSetting(env: Record<string, string>, name: string, fallback: number): number {
  const text = env[name] ?? '';
  if (text === '') return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${name} must be a TCP port number (1 to 65535), got ${JSON.stringify(text)}`);
  return port;
}

/**
 * The environment of a stack whose S3 server is the embedded one: the services sign (IAMRole replications) with the
 * installation's account, the only one that server knows, whatever S3_ACCESS_KEY_ID said.
 */
export function withEmbeddedS3Account(env: Record<string, string>, account: S3Account): Record<string, string> {
  return { ...env, S3_ACCESS_KEY_ID: account.accessKeyId, S3_SECRET_ACCESS_KEY: account.secretAccessKey };
}

/** Whether `npm start` runs on the installation's development key: the user gave no bootstrap setting. */
export function usesDevelopmentKey({ defaulted }: Pick<LocalEnvironment, 'defaulted'>): boolean {
  return BOOTSTRAP_SETTINGS.every((name) => defaulted.includes(name));
}

/** The environment of a stack on the development key: the registry makes it its bootstrap key, allowed everything. */
export function withDevelopmentKey(env: Record<string, string>, key: DevelopmentKey): Record<string, string> {
  return { ...env, SVC_BOOTSTRAP_ACCESS_KEY_ID: key.accessKeyId, SVC_BOOTSTRAP_SECRET_KEY: key.secretKey };
}

/**
 * Why `npm start` must not run with these settings, or null. An access key of the user's own means data worth
 * guarding, which the public development master key would not guard. The development key is an admin key kept in a
 * file of this machine, over plain HTTP: other machines must not reach an API it opens.
 */
export function developmentKeyProblem({ env, defaulted }: Pick<LocalEnvironment, 'env' | 'defaulted'>): string | null {
  const ownBootstrap = BOOTSTRAP_SETTINGS.filter((name) => !defaulted.includes(name));
  const host = env['HOST'] ?? '';
  if (ownBootstrap.length === 0 && !isLoopbackHost(host)) {
    return (
      `HOST is ${host}, not loopback: other machines would reach an API that npm start's development access key ` +
      '(allowed everything) opens. Unset HOST (or set it to 127.0.0.1) to keep the API on this machine, or give ' +
      'SVC_BOOTSTRAP_ACCESS_KEY_ID, SVC_BOOTSTRAP_SECRET_KEY and SVC_MASTER_KEY of your own (and TLS_CERT_FILE and TLS_KEY_FILE for HTTPS)'
    );
  }
  if (ownBootstrap.length === 0) return null;
  if (ownBootstrap.length === 1) {
    return `${ownBootstrap.join('')} is set but ${BOOTSTRAP_SETTINGS.find((name) => defaulted.includes(name)) ?? ''} is not: give both, or neither for the development key`;
  }
  if (defaulted.includes('SVC_MASTER_KEY')) {
    return 'SVC_BOOTSTRAP_ACCESS_KEY_ID and SVC_BOOTSTRAP_SECRET_KEY are your own, but SVC_MASTER_KEY is not set and would be the public development key: set SVC_MASTER_KEY to a key of your own (64 hex characters, for example `openssl rand -hex 32`)';
  }
  return null;
}

/** What `npm start` says about how its API is reached: plain HTTP, on loopback unless HOST says otherwise. */
export function apiTransportNotice(env: Record<string, string>): string {
  const host = env['HOST'] ?? '';
  if (isLoopbackHost(host)) {
    return `The API is plain HTTP on ${host} only, for development; to serve other machines, give the api-gateway TLS_CERT_FILE and TLS_KEY_FILE (HTTPS).`;
  }
  return `Warning: the API is plain HTTP on ${host}, reachable from other machines: request bodies (database passwords, S3 keys) travel unencrypted.`;
}

/**
 * The live demo's environment, or null when it does not run: it runs on the development access key (after
 * withDevelopmentKey) unless SVC_DEMO=off, and with SVC_DEMO=on whatever the key. It signs with the
 * bootstrap key and keeps its databases on the control database's server unless DEMO_POSTGRES_URL says otherwise.
 */
export function liveDemoEnvironment({ env, defaulted }: Pick<LocalEnvironment, 'env' | 'defaulted'>): Record<string, string> | null {
  const wanted = (env['SVC_DEMO'] ?? '').trim().toLowerCase();
  if (wanted === 'off' || (wanted !== 'on' && !defaulted.includes('SVC_BOOTSTRAP_ACCESS_KEY_ID'))) return null;
  const server = new URL(env['DATABASE_URL'] ?? '');
  server.pathname = '/postgres';
  return {
    ...env,
    SVC_ENDPOINT: `http://127.0.0.1:${env['PORT'] ?? ''}`,
    SVC_ACCESS_KEY_ID: env['SVC_BOOTSTRAP_ACCESS_KEY_ID'] ?? '',
    SVC_SECRET_ACCESS_KEY: env['SVC_BOOTSTRAP_SECRET_KEY'] ?? '',
    DEMO_POSTGRES_URL: env['DEMO_POSTGRES_URL'] || server.toString(),
  };
}

import { ConfigError, DEFAULT_REGION, EnvReader } from '@svc/config';
import { EMBEDDED_S3_CREDENTIALS_FILE, embeddedS3CredentialsPath } from '@svc/testing';

/**
 * The development access key `npm start` prints. Duplicated from tools/local-stack (LOCAL_DEFAULTS), which
 * another tool may not import; keep the two in step.
 */
export const DEVELOPMENT_ACCESS_KEY = { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'local-development-secret-key-change-me' } as const;

export interface DemoDatabases {
  source: string;
  staging: string;
  warehouse: string;
}

/** `npm run demo`'s walk-through. */
export const DEMO_DATABASES: DemoDatabases = {
  source: 'svc_demo_source',
  staging: 'svc_demo_staging',
  warehouse: 'svc_demo_warehouse',
};

export const DEFAULT_LIVE_DEMO_PREFIX = 'svc_live';

/**
 * The databases of the replication `npm start` keeps changing: its own, so that `npm run demo` can drop and
 * compare its databases meanwhile.
 */
export function liveDemoDatabases(prefix: string): DemoDatabases {
  return { source: `${prefix}_source`, staging: `${prefix}_staging`, warehouse: `${prefix}_warehouse` };
}

/** The warehouse schema the demo replicates into. */
export const DEMO_WAREHOUSE_SCHEMA = 'analytics';

export interface DemoSettings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretKey: string;
  /** Server URL the demo administers databases through (its database part names the maintenance database). */
  postgresUrl: string;
  /** True when the access key is the public development one. */
  developmentKey: boolean;
  /** Names the live demo's databases (`<prefix>_source`, …). */
  liveDemoPrefix: string;
  /** Where `npm start` keeps the credentials of its embedded S3 server, which the demo's replications use. */
  bucketCredentialsFile: string;
}

/** Reads the demo's environment; throws a ConfigError naming every bad value (never echoing one). */
export function loadDemoSettings(environment: Record<string, string | undefined>, repoRoot: string): DemoSettings {
  const env = new EnvReader(environment);
  const accessKeyId = env.optionalString('SVC_ACCESS_KEY_ID');
  const secretKey = env.optionalString('SVC_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretKey === undefined)) {
    // Reported through the reader so it comes out with any other problem.
    env.string(accessKeyId === undefined ? 'SVC_ACCESS_KEY_ID' : 'SVC_SECRET_ACCESS_KEY');
  }
  const settings: DemoSettings = {
    endpoint: env.url('SVC_ENDPOINT', 'http://127.0.0.1:8080', ['http', 'https']),
    region: env.string('SVC_REGION', DEFAULT_REGION),
    accessKeyId: accessKeyId ?? DEVELOPMENT_ACCESS_KEY.accessKeyId,
    secretKey: secretKey ?? DEVELOPMENT_ACCESS_KEY.secretKey,
    postgresUrl: env.url('DEMO_POSTGRES_URL', 'postgres://postgres@127.0.0.1:5432/postgres', ['postgres', 'postgresql']),
    developmentKey: accessKeyId === undefined,
    liveDemoPrefix: env.string('DEMO_DATABASE_PREFIX', DEFAULT_LIVE_DEMO_PREFIX),
    bucketCredentialsFile: embeddedS3CredentialsPath({ [EMBEDDED_S3_CREDENTIALS_FILE]: env.optionalString(EMBEDDED_S3_CREDENTIALS_FILE) }, repoRoot),
  };
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(settings.liveDemoPrefix)) {
    throw new ConfigError(['DEMO_DATABASE_PREFIX: must be 1 to 41 lower-case letters, digits or underscores, not starting with a digit']);
  }
  env.done();
  return settings;
}

/** The same server as `serverUrl`, database `database`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

import { ConfigError, DEFAULT_REGION, EnvReader } from '@svc/config';
import { DEVELOPMENT_KEY_FILE, EMBEDDED_S3_CREDENTIALS_FILE, developmentKeyPath, embeddedS3CredentialsPath, readDevelopmentKey, type DevelopmentKey } from '@svc/testing';

export interface DemoDatabases {
  source: string;
  staging: string;
  warehouse: string;
}

/** `npm run demo`'s walk-through, by default (DEMO_RUN_DATABASE_PREFIX). */
export const DEFAULT_DEMO_RUN_PREFIX = 'svc_demo';
export const DEMO_DATABASES: DemoDatabases = demoDatabases(DEFAULT_DEMO_RUN_PREFIX);

export const DEFAULT_LIVE_DEMO_PREFIX = 'svc_live';

/** A demo's three databases: `<prefix>_source`, `<prefix>_staging`, `<prefix>_warehouse`. */
export function demoDatabases(prefix: string): DemoDatabases {
  return { source: `${prefix}_source`, staging: `${prefix}_staging`, warehouse: `${prefix}_warehouse` };
}

/**
 * The databases of the replication `npm start` keeps changing: its own, so that `npm run demo` can drop and
 * compare its databases meanwhile.
 */
export function liveDemoDatabases(prefix: string): DemoDatabases {
  return demoDatabases(prefix);
}

/** A database prefix either demo accepts: its databases' names stay within PostgreSQL's 63 bytes and need no quoting. */
const DATABASE_PREFIX = /^[a-z_][a-z0-9_]{0,40}$/;
const PREFIX_RULE = 'must be 1 to 41 lower-case letters, digits or underscores, not starting with a digit';

/** The warehouse schema the demo replicates into. */
export const DEMO_WAREHOUSE_SCHEMA = 'analytics';

export interface DemoSettings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretKey: string;
  /** Server URL the demo administers databases through (its database part names the maintenance database). */
  postgresUrl: string;
  /** True when the access key is the development key of `npm start` in this checkout. */
  developmentKey: boolean;
  /** Names the live demo's databases (`<prefix>_source`, …). */
  liveDemoPrefix: string;
  /** `npm run demo`'s databases (DEMO_RUN_DATABASE_PREFIX). */
  runDatabases: DemoDatabases;
  /** Where `npm start` keeps the credentials of its embedded S3 server, which the demo's replications use. */
  bucketCredentialsFile: string;
}

/**
 * Reads the demo's environment; throws a ConfigError naming every bad value (never echoing one). Without a key in
 * the environment it signs with the installation's development key, read from the file `npm start` keeps it in.
 */
export function loadDemoSettings(
  environment: Record<string, string | undefined>,
  repoRoot: string,
  readKeyFile: (path: string) => DevelopmentKey = readDevelopmentKey,
): DemoSettings {
  const env = new EnvReader(environment);
  const accessKeyId = env.optionalString('SVC_ACCESS_KEY_ID');
  const secretKey = env.optionalString('SVC_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretKey === undefined)) {
    // Reported through the reader so it comes out with any other problem.
    env.string(accessKeyId === undefined ? 'SVC_ACCESS_KEY_ID' : 'SVC_SECRET_ACCESS_KEY');
  }
  const keyFile = developmentKeyPath({ [DEVELOPMENT_KEY_FILE]: env.optionalString(DEVELOPMENT_KEY_FILE) }, repoRoot);
  const settings: Omit<DemoSettings, 'accessKeyId' | 'secretKey'> = {
    endpoint: env.url('SVC_ENDPOINT', 'http://127.0.0.1:8080', ['http', 'https']),
    region: env.string('SVC_REGION', DEFAULT_REGION),
    postgresUrl: env.url('DEMO_POSTGRES_URL', 'postgres://postgres@127.0.0.1:5432/postgres', ['postgres', 'postgresql']),
    developmentKey: accessKeyId === undefined,
    liveDemoPrefix: env.string('DEMO_DATABASE_PREFIX', DEFAULT_LIVE_DEMO_PREFIX),
    runDatabases: demoDatabases(env.string('DEMO_RUN_DATABASE_PREFIX', DEFAULT_DEMO_RUN_PREFIX)),
    bucketCredentialsFile: embeddedS3CredentialsPath({ [EMBEDDED_S3_CREDENTIALS_FILE]: env.optionalString(EMBEDDED_S3_CREDENTIALS_FILE) }, repoRoot),
  };
  const runPrefix = settings.runDatabases.source.slice(0, -'_source'.length);
  const problems = [
    ...(DATABASE_PREFIX.test(settings.liveDemoPrefix) ? [] : [`DEMO_DATABASE_PREFIX: ${PREFIX_RULE}`]),
    ...(DATABASE_PREFIX.test(runPrefix) ? [] : [`DEMO_RUN_DATABASE_PREFIX: ${PREFIX_RULE}`]),
    ...(runPrefix === settings.liveDemoPrefix ? ['DEMO_RUN_DATABASE_PREFIX: must differ from DEMO_DATABASE_PREFIX (npm run demo drops its databases)'] : []),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
  env.done();
  const key = accessKeyId !== undefined && secretKey !== undefined ? { accessKeyId, secretKey } : readKeyFile(keyFile);
  return { ...settings, accessKeyId: key.accessKeyId, secretKey: key.secretKey };
}

/** The same server as `serverUrl`, database `database`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

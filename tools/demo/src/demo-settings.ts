import { DEFAULT_REGION, EnvReader } from '@svc/config';

/**
 * The development access key `npm start` prints. Duplicated from tools/local-stack (LOCAL_DEFAULTS), which
 * another tool may not import; keep the two in step.
 */
export const DEVELOPMENT_ACCESS_KEY = { accessKeyId: 'SVCLOCALDEVELOPMENT', secretKey: 'local-development-secret-key-change-me' } as const;

export const DEMO_DATABASES = {
  source: 'svc_demo_source',
  staging: 'svc_demo_staging',
  warehouse: 'svc_demo_warehouse',
} as const;

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
}

/** Reads the demo's environment; throws a ConfigError naming every bad value (never echoing one). */
export function loadDemoSettings(environment: Record<string, string | undefined>): DemoSettings {
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
  };
  env.done();
  return settings;
}

/** The same server as `serverUrl`, database `database`. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The environment variables `svc` reads; the only place that knows their names besides messages. */
export interface CliEnvironment {
  accessKeyId?: string;
  secretAccessKey?: string;
  profile?: string;
  credentialsFile?: string;
  endpoint?: string;
  region?: string;
  natsUrl?: string;
  /** PEM file of the CA that signed the gateway's certificate, trusted for https:// endpoints. */
  caFile?: string;
}

export const ENV_NAMES = {
  accessKeyId: 'SVC_ACCESS_KEY_ID',
  secretAccessKey: 'SVC_SECRET_ACCESS_KEY',
  profile: 'SVC_PROFILE',
  credentialsFile: 'SVC_SHARED_CREDENTIALS_FILE',
  endpoint: 'SVC_ENDPOINT',
  region: 'SVC_REGION',
  natsUrl: 'NATS_URL',
  caFile: 'SVC_CA_FILE',
} as const satisfies Record<keyof CliEnvironment, string>;

/** Empty or blank variables count as unset, as in aws-cli. */
export function readCliEnvironment(env: Record<string, string | undefined>): CliEnvironment {
  const result: CliEnvironment = {};
  for (const key of Object.keys(ENV_NAMES) as Array<keyof CliEnvironment>) {
    const value = env[ENV_NAMES[key]]?.trim();
    if (value) result[key] = value;
  }
  return result;
}

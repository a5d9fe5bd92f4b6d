import type { EnvReader } from './env-reader';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/svc_registry';
export const DEFAULT_REGION = 'us-east-1';
/** The SVC4 scope's service name (DESIGN §4). */
export const SIGNING_SERVICE_NAME = 'replication';

export interface NatsSettings {
  url: string;
  /** Milliseconds a request waits for its reply. */
  requestTimeoutMs: number;
}

export function readNatsSettings(env: EnvReader): NatsSettings {
  return {
    url: env.url('NATS_URL', DEFAULT_NATS_URL, ['nats', 'tls', 'ws', 'wss']),
    requestTimeoutMs: env.int('NATS_REQUEST_TIMEOUT_MS', 30000, { min: 100 }),
  };
}

export interface S3ServiceSettings {
  endpoint?: string;
  serviceAccessKeyId?: string;
  serviceSecretAccessKey?: string;
  allowBucketCreation: boolean;
}

export function readS3Settings(env: EnvReader): S3ServiceSettings {
  const endpoint = env.optionalString('S3_ENDPOINT');
  const serviceAccessKeyId = env.optionalString('S3_ACCESS_KEY_ID');
  const serviceSecretAccessKey = env.optionalString('S3_SECRET_ACCESS_KEY');
  return {
    ...(endpoint !== undefined && { endpoint }),
    ...(serviceAccessKeyId !== undefined && { serviceAccessKeyId }),
    ...(serviceSecretAccessKey !== undefined && { serviceSecretAccessKey }),
    allowBucketCreation: env.bool('S3_ALLOW_BUCKET_CREATION', endpoint !== undefined),
  };
}

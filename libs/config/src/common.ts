import type { EnvReader } from './env-reader';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/svc_registry';
export const DEFAULT_REGION = 'us-east-1';
/** The SVC4 scope's service name (DESIGN §4). */
export const SIGNING_SERVICE_NAME = 'replication';

/** JetStream keeps at most five copies of a stream. */
export const MAX_STREAM_REPLICAS = 5;

export interface NatsSettings {
  /** NATS_URL: one server, or the servers of a cluster separated by commas (the client fails over between them). */
  servers: string[];
  /** Milliseconds a request waits for its reply. */
  requestTimeoutMs: number;
  /** Copies JetStream keeps of every pipeline stream: 1 for a single server, 3 for a cluster of three or more. */
  streamReplicas: number;
}

export function readNatsSettings(env: EnvReader): NatsSettings {
  return {
    servers: env.urlList('NATS_URL', DEFAULT_NATS_URL, ['nats', 'tls', 'ws', 'wss']),
    requestTimeoutMs: env.int('NATS_REQUEST_TIMEOUT_MS', 30000, { min: 100 }),
    streamReplicas: env.int('NATS_STREAM_REPLICAS', 1, { min: 1, max: MAX_STREAM_REPLICAS }),
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

import { INSTALLATION_SETTING, installationProblem } from '@svc/contracts';
import { MasterKeyError, parseMasterKey } from '@svc/crypto';
import type { EnvReader } from './env-reader';
import { readNatsSecurity, type NatsSecurity } from './nats-security';

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
  /**
   * NATS_ACK_WAIT_SECONDS: how long a unit of work taken by a worker goes without an outcome or a heartbeat (sent every
   * third of it) before JetStream hands it to another worker: how soon the work of a crashed worker is taken up again.
   */
  ackWaitMs: number;
  /** Credentials and TLS (NATS_CREDS | NATS_USER+NATS_PASSWORD | NATS_NKEY_SEED, NATS_CA_FILE, NATS_CERT_FILE+NATS_KEY_FILE). */
  security: NatsSecurity;
  /** SVC_INSTALLATION: whose subjects, streams and buckets on NATS ('' the default installation); see BusNames. */
  installation: string;
}

export function readNatsSettings(env: EnvReader): NatsSettings {
  const servers = env.urlList('NATS_URL', DEFAULT_NATS_URL, ['nats', 'tls', 'ws', 'wss']);
  return {
    servers,
    security: readNatsSecurity(env, servers),
    requestTimeoutMs: env.int('NATS_REQUEST_TIMEOUT_MS', 30000, { min: 100 }),
    streamReplicas: env.int('NATS_STREAM_REPLICAS', 1, { min: 1, max: MAX_STREAM_REPLICAS }),
    ackWaitMs: env.int('NATS_ACK_WAIT_SECONDS', 15, { min: 3, max: 3600 }) * 1000,
    installation: readInstallation(env),
  };
}

/** Checked at start, so that a bad name stops the boot with the setting named (the messaging layer reads it too). */
function readInstallation(env: EnvReader): string {
  const installation = env.optionalString(INSTALLATION_SETTING) ?? '';
  const problem = installationProblem(installation);
  if (problem !== null) env.problem(problem);
  return installation;
}

export interface S3ServiceSettings {
  endpoint?: string;
  /** STS_ENDPOINT: where IAMRole replications' roles are assumed; absent → STS's regional endpoint of the bucket. */
  stsEndpoint?: string;
  serviceAccessKeyId?: string;
  serviceSecretAccessKey?: string;
  allowBucketCreation: boolean;
  connectTimeoutMs: number;
  socketTimeoutMs: number;
}

export function readS3Settings(env: EnvReader): S3ServiceSettings {
  const endpoint = env.optionalString('S3_ENDPOINT');
  const stsEndpoint = env.optionalString('STS_ENDPOINT');
  if (stsEndpoint !== undefined) env.url('STS_ENDPOINT', stsEndpoint, ['http', 'https']);
  const serviceAccessKeyId = env.optionalString('S3_ACCESS_KEY_ID');
  const serviceSecretAccessKey = env.optionalString('S3_SECRET_ACCESS_KEY');
  return {
    ...(endpoint !== undefined && { endpoint }),
    ...(stsEndpoint !== undefined && { stsEndpoint }),
    ...(serviceAccessKeyId !== undefined && { serviceAccessKeyId }),
    ...(serviceSecretAccessKey !== undefined && { serviceSecretAccessKey }),
    allowBucketCreation: env.bool('S3_ALLOW_BUCKET_CREATION', endpoint !== undefined),
    connectTimeoutMs: env.int('S3_CONNECT_TIMEOUT_SECONDS', 10, { min: 1, max: 600 }) * 1000,
    socketTimeoutMs: env.int('S3_SOCKET_TIMEOUT_SECONDS', 300, { min: 1, max: 3600 }) * 1000,
  };
}

/**
 * SVC_WORKER_KEY: the key job-registry and every pipeline worker share, and nothing else on the bus holds. Workers
 * prove with it that they may have a replication's configuration; the registry seals the configuration with it.
 */
export function readWorkerKey(env: EnvReader): Buffer {
  const text = env.string('SVC_WORKER_KEY');
  if (text === '') return Buffer.alloc(0);
  try {
    return parseMasterKey(text);
  } catch (error) {
    if (!(error instanceof MasterKeyError)) throw error;
    env.problem('SVC_WORKER_KEY: must be 64 hexadecimal characters or the base64 encoding of 32 bytes, the same in job-registry and every pipeline worker');
    return Buffer.alloc(0);
  }
}

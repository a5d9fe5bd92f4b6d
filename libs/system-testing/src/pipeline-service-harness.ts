import type { NatsConnection } from 'nats';
import { isPipelinePayload, type PipelinePayloadOf, type PipelineSubject, type ReplicationConfig } from '@svc/contracts';
import { PipelinePublisher, PipelineWorker, busNames, connectNats, ensurePipelineStreams } from '@svc/messaging';
import { TEST_WORKER_KEY, startTestNats, startTestS3, waitUntil, type TestNats, type TestS3 } from '@svc/testing';
import { serveRuntimeConfigs } from './runtime-configs';

/** A pipeline service under test, as started by its spec (a Nest application is one). */
export interface RunningService {
  close(): Promise<void>;
}

/** Worker settings (input of loadWorkerConfig) that point a service at the harness's NATS and S3. */
export type HarnessWorkerEnvironment = {
  NATS_URL: string;
  SVC_WORKER_KEY: string;
  NATS_REQUEST_TIMEOUT_MS: string;
  S3_ENDPOINT: string;
  /** The specs' databases are on this machine's PostgreSQL (the workers hold every connect to the host policy). */
  ALLOW_LOOPBACK_TARGETS: string;
};

/** One table's message of subject S: a group's message (several tables' messages travelling together) is its members. */
export type SingleMessageOf<S extends PipelineSubject> = Exclude<PipelinePayloadOf<S>, { group: unknown }>;

function membersOf<S extends PipelineSubject>(message: PipelinePayloadOf<S>): SingleMessageOf<S>[] {
  return ('group' in message ? message.group : [message]) as SingleMessageOf<S>[];
}

export interface PipelineServiceHarnessOptions<S extends PipelineSubject> {
  /** The service under test; its durable consumer on the work stream is the one `idle()` waits on. */
  service: 'extractor' | 'stager' | 'loader';
  /** Names the harness's NATS connection and its consumer of the service's results. */
  testName: string;
  /** The runtime configuration of each replication, answered as the registry does. */
  configs: ReadonlyMap<string, ReplicationConfig>;
  /** Buckets that exist on the private S3 server from the start. */
  buckets?: string[];
  /** The subject the service reports its results on. */
  resultSubject: S;
  /** Called with each result as it arrives (each member of a group's), after it was collected. */
  onResult?: (result: SingleMessageOf<S>) => void;
  /** Starts the service in this process with the given worker settings. */
  startService: (environment: HarnessWorkerEnvironment) => Promise<RunningService>;
}

export interface PipelineServiceHarness<S extends PipelineSubject> {
  nats: TestNats;
  s3: TestS3;
  /** The test's own connection: it publishes work and serves the runtime configurations. */
  connection: NatsConnection;
  publisher: PipelinePublisher;
  /** Every result the service reported, in arrival order (a group's as its members). */
  results: SingleMessageOf<S>[];
  /** How many of the service's messages carried a group. */
  groupMessages(): number;
  /** The work ids of the results that came in a group's message. */
  groupedWorkIds: ReadonlySet<string>;
  resultsOf(workId: string): SingleMessageOf<S>[];
  /** Waits until the service has taken and acknowledged every message of its consumer. */
  idle(): Promise<void>;
  /** Stops the results consumer, the service, the connection and the servers; safe to call after a failed start. */
  stop(): Promise<void>;
}

/**
 * One pipeline service (extractor, stager or loader) in process against a private NATS JetStream and S3
 * server, with the registry's runtime-configuration replies served from a map and its results collected.
 * Databases stay with the spec: each service reads and writes different ones.
 */
export async function startPipelineServiceHarness<S extends PipelineSubject>(options: PipelineServiceHarnessOptions<S>): Promise<PipelineServiceHarness<S>> {
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const stopOne of stoppers.splice(0).reverse()) await stopOne();
  };
  try {
    const nats = await startTestNats();
    stoppers.push(() => nats.stop());
    const s3 = await startTestS3({ buckets: options.buckets ?? [] });
    stoppers.push(() => s3.stop());
    const connection = await connectNats(nats.url, options.testName);
    stoppers.push(() => connection.close());
    // As the registry does: workers wait for the streams, only the registry makes them.
    await ensurePipelineStreams(connection);
    serveRuntimeConfigs(connection, options.configs);
    await connection.flush();

    const service = await options.startService({
      NATS_URL: nats.url,
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      NATS_REQUEST_TIMEOUT_MS: '5000',
      S3_ENDPOINT: s3.endpoint,
      ALLOW_LOOPBACK_TARGETS: 'true',
    });
    stoppers.push(() => service.close());

    const results: SingleMessageOf<S>[] = [];
    let groupMessages = 0;
    const groupedWorkIds = new Set<string>();
    const resultWorker = new PipelineWorker(connection, {
      subject: options.resultSubject,
      durableName: options.testName,
      concurrency: 4,
      guard: isPipelinePayload(options.resultSubject),
      handle: async (message) => {
        if ('group' in message) groupMessages += 1;
        for (const result of membersOf<S>(message)) {
          if ('group' in message) groupedWorkIds.add(result.workId);
          results.push(result);
          options.onResult?.(result);
        }
      },
    });
    await resultWorker.start();
    stoppers.push(() => resultWorker.stop());

    return {
      nats,
      s3,
      connection,
      publisher: new PipelinePublisher(connection),
      results,
      groupMessages: () => groupMessages,
      groupedWorkIds,
      resultsOf: (workId) => results.filter((result) => result.workId === workId),
      idle: () => consumerIdle(connection, options.service),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function consumerIdle(connection: NatsConnection, service: string): Promise<void> {
  const manager = await connection.jetstreamManager();
  await waitUntil(
    async () => {
      const info = await manager.consumers.info(busNames().workStream, service);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    30000,
    `the ${service} to finish its work`,
  );
}

import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadWorkerConfig } from '@svc/config';
import { JsonLogger } from '@svc/logging';
import { listenOnNats, natsMicroserviceOptions } from '@svc/messaging-nest';
import { PipelineSubjects, type BatchExtracted, type ReplicationConfig } from '@svc/contracts';
import { startPipelineServiceHarness, type PipelineServiceHarness } from '@svc/system-testing';
import { TEST_WORKER_KEY } from '@svc/testing';
import { AppModule } from '../app.module';

/** Worker settings for the extractor under test: its NATS server at least (NATS_REQUEST_TIMEOUT_MS defaults to 5 s). */
export type ExtractorEnvironment = { NATS_URL: string } & Record<string, string>;

/** The extractor app as main.ts wires it, with the given worker settings, its log lines (debug and up) handed to `logSink`. */
export async function startExtractor(environment: ExtractorEnvironment, logSink: (line: string) => void): Promise<INestMicroservice> {
  // The specs' databases are on this machine's PostgreSQL: the extractor holds every connect to the host policy.
  const settings = loadWorkerConfig({ NATS_REQUEST_TIMEOUT_MS: '5000', SVC_WORKER_KEY: TEST_WORKER_KEY, ALLOW_LOOPBACK_TARGETS: 'true', ...environment });
  const logger = new JsonLogger('extractor', 'debug', logSink);
  const app = await NestFactory.createMicroservice(AppModule.forConfig(settings, logger), { ...natsMicroserviceOptions(environment.NATS_URL, 'extractor'), logger: false });
  await listenOnNats(app);
  return app;
}

export interface ExtractorHarnessOptions {
  /** Names the harness's NATS connection and consumer. */
  testName: string;
  /** The runtime configuration of each replication, answered as the registry does. */
  configs: ReadonlyMap<string, ReplicationConfig>;
  /** Worker settings besides the harness's own (e.g. SEED_PART_MB). */
  environment?: Record<string, string>;
  logSink?: (line: string) => void;
  onResult?: (event: BatchExtracted) => void;
}

/** The extractor under test behind a private NATS and S3, every batch it announces collected by the harness. */
export function startExtractorHarness(options: ExtractorHarnessOptions): Promise<PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>> {
  return startPipelineServiceHarness({
    service: 'extractor',
    testName: options.testName,
    configs: options.configs,
    resultSubject: PipelineSubjects.batchExtracted,
    ...(options.onResult && { onResult: options.onResult }),
    startService: (environment) => startExtractor({ ...environment, ...options.environment }, options.logSink ?? (() => undefined)),
  });
}

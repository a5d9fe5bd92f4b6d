import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { JsonLogger, type LogSink } from '@svc/logging';
import { listenOnNats, natsMicroserviceOptions } from '@svc/messaging-nest';
import { AppModule } from './app.module';
import type { RegistryConfig } from './config/registry-config';
import type { ReachabilityProbe } from './replications/reachability-probe';

export interface RegistryAppOptions {
  /** Replaces the real reachability probe (tests). */
  reachabilityProbe?: ReachabilityProbe;
  /** Where log lines go; stdout by default. */
  logSink?: LogSink;
}

/** NATS queue group: registry instances share requests instead of each answering every one. */
export const REGISTRY_QUEUE_GROUP = 'job-registry';

/**
 * Starts job-registry: prepares the control database (create, migrate), upserts the bootstrap key and
 * listens on NATS. Returns the running app; `close()` stops it and releases its connections.
 */
export async function createRegistryApp(config: RegistryConfig, options: RegistryAppOptions = {}): Promise<INestMicroservice> {
  const logger = new JsonLogger('job-registry', config.logLevel, options.logSink);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    AppModule.forRoot(config, { logger, ...(options.reachabilityProbe && { reachabilityProbe: options.reachabilityProbe }) }),
    { ...natsMicroserviceOptions(config.nats.servers, REGISTRY_QUEUE_GROUP, { security: config.nats.security, role: 'job-registry' }), logger, abortOnError: false },
  );
  try {
    await listenOnNats(app);
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceName } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger } from '@svc/logging';
import { natsMicroserviceOptions } from './nats-transport';

/** Boots a NATS-only service (no HTTP) in the queue group named after it. */
export async function startNatsWorker(service: ServiceName, module: Type<unknown>, config: WorkerConfig): Promise<void> {
  const logger = new JsonLogger(service, config.logLevel);
  const app = await NestFactory.createMicroservice(module, { ...natsMicroserviceOptions(config.nats.url, service), logger });
  app.enableShutdownHooks();
  await app.listen();
  logger.info(`${service} ready`);
}

/** The common `main` of a worker: start it, or print why it could not start and exit 1. */
export function runNatsWorker(service: ServiceName, module: Type<unknown>, config: () => WorkerConfig): void {
  Promise.resolve()
    .then(() => startNatsWorker(service, module, config()))
    .catch((error: unknown) => {
      process.stderr.write(`${service} failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}

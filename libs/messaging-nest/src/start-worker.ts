import 'reflect-metadata';
import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ServiceName } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger } from '@svc/logging';
import { listenOnNats, natsMicroserviceOptions } from './nats-transport';

export type WorkerModuleFactory = (config: WorkerConfig, logger: JsonLogger) => Type<unknown> | DynamicModule;

/** Boots a NATS-only service (no HTTP) in the queue group named after it. */
export async function startNatsWorker(service: ServiceName, moduleFor: WorkerModuleFactory, config: WorkerConfig): Promise<void> {
  const logger = new JsonLogger(service, config.logLevel);
  const app = await NestFactory.createMicroservice(moduleFor(config, logger), { ...natsMicroserviceOptions(config.nats.servers, service, { security: config.nats.security, role: service }), logger });
  app.enableShutdownHooks();
  await listenOnNats(app);
  logger.info(`${service} ready`);
  const hooks = Object.keys(process.env).filter((name) => name.startsWith('SVC_TEST_HOOK_') && process.env[name] !== '');
  if (hooks.length > 0) logger.warn(`${service} runs with test hooks set, which change how it works and must never be set in production: ${hooks.join(', ')}`);
}

/** The common `main` of a worker: start it, or print why it could not start and exit 1. */
export function runNatsWorker(service: ServiceName, moduleFor: WorkerModuleFactory, config: () => WorkerConfig): void {
  Promise.resolve()
    .then(() => startNatsWorker(service, moduleFor, config()))
    .catch((error: unknown) => {
      process.stderr.write(`${service} failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}

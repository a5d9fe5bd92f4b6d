export { createHealthController } from './health.controller';
export { NATS_CONNECTION, NatsRequesterModule } from './nats-requester.module';
export { listenOnNats, natsMicroserviceOptions } from './nats-transport';
export { runNatsWorker, startNatsWorker, type WorkerModuleFactory } from './start-worker';

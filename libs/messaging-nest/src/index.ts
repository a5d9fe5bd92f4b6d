export { createHealthController } from './health.controller';
export { NATS_CONNECTION, NatsRequesterModule } from './nats-requester.module';
export { listenOnNats, natsMicroserviceOptions } from './nats-transport';
export { runNatsWorker, startNatsWorker, type WorkerModuleFactory } from './start-worker';
export { CHECK_TIMEOUT_MS, ProbeHost, ProbeServer, natsReachable, probeHostProvider, readinessOf, type CheckOutcome, type ReadinessCheck, type ReadinessReport } from './probe-server';

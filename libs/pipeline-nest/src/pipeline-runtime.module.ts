import { Inject, Injectable, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Subjects, type PipelineSubject } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import { RuntimeConfigSeal } from '@svc/crypto';
import { JsonLogger } from '@svc/logging';
import { CancelledWork, NatsRequester, busNames, PipelinePublisher, PipelineWorker, waitForPipelineStreams, type PipelineWorkerOptions } from '@svc/messaging';
import { NATS_CONNECTION, NatsRequesterModule, natsReachable, probeHostProvider, type ReadinessCheck } from '@svc/messaging-nest';
import { EngineRegistry, RuntimeConfigClient } from '@svc/pipeline-runtime';
import { skippingCancelledWork } from './cancelled-work-filter';
import { inOwnConnectionScope, poolSizingsOf } from './connection-scope';
import { loggingFailures } from './failure-logging';
import { reportingProgress } from './work-heartbeat';

export const WORKER_CONFIG = Symbol('WORKER_CONFIG');
/** An AbortController aborted when the app shuts down: waits of handlers in flight end, and their messages go back. */
export const WORKER_SHUTDOWN = Symbol('WORKER_SHUTDOWN');
/** The pipeline consumers an app runs: provide a factory returning PipelineWorkerOptions[]. */
export const PIPELINE_CONSUMERS = Symbol('PIPELINE_CONSUMERS');

export type AnyPipelineWorkerOptions = PipelineWorkerOptions<PipelineSubject>;

/**
 * Starts the app's JetStream consumers once everything is wired, and drains them (then the engines) on shutdown.
 * List this provider in the app module, next to a PIPELINE_CONSUMERS provider built from the app's services.
 * Every consumer acknowledges and drops, unworked, a message of a unit of work the registry has cancelled.
 */
@Injectable()
export class PipelineConsumersHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly workers: PipelineWorker<PipelineSubject>[] = [];
  /** Every consumer was started (the pipeline streams existed and the consumers were made). */
  private consuming = false;

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(PIPELINE_CONSUMERS) private readonly consumers: AnyPipelineWorkerOptions[],
    private readonly engines: EngineRegistry,
    private readonly cancelled: CancelledWork,
    private readonly requester: NatsRequester,
    private readonly logger: JsonLogger,
    @Inject(WORKER_SHUTDOWN) private readonly shutdown: AbortController,
    @Inject(WORKER_CONFIG) private readonly config: Pick<WorkerConfig, 'nats'>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    let waitsLogged = 0;
    await waitForPipelineStreams(this.connection, {
      signal: this.shutdown.signal,
      onWait: (missing) => {
        // Every 10 s: the registry makes the streams when it starts.
        if (waitsLogged++ % 20 === 0) this.logger.info('waiting for job-registry to create the pipeline streams', { missing: missing.join(', ') });
      },
    });
    await this.cancelled.start();
    for (const options of this.consumers) {
      const { subject } = options;
      const live = skippingCancelledWork(inOwnConnectionScope(options), this.cancelled, (workId) => this.logger.debug('dropped a message of cancelled work', { subject, workId }));
      const heartbeating = reportingProgress(live, (progress) => this.requester.publish(Subjects.workProgress, progress));
      const worker = new PipelineWorker(this.connection, { ...loggingFailures(heartbeating, this.logger), ackWaitMs: this.config.nats.ackWaitMs });
      await worker.start();
      this.workers.push(worker);
      this.logger.info('consuming', { subject: options.subject, durable: options.durableName, concurrency: options.concurrency });
    }
    this.consuming = true;
  }

  /**
   * Readiness: every consumer was started and JetStream still answers for each (its info). Rejects while the app waits
   * for the registry to create the pipeline streams, and while JetStream cannot serve them.
   */
  readonly consumersCheck: ReadinessCheck = {
    name: 'consumers',
    check: async () => {
      if (!this.consuming) throw new Error('the consumers have not started');
      const manager = await this.connection.jetstreamManager();
      await Promise.all(this.consumers.map((options) => manager.consumers.info(busNames().workStream, options.durableName)));
    },
  };

  async onApplicationShutdown(): Promise<void> {
    this.consuming = false;
    // No new messages are taken; then waits in flight (registry outage, seed part order) end, handing theirs back.
    const stopped = Promise.allSettled(this.workers.map((worker) => worker.stop()));
    this.shutdown.abort();
    await stopped;
    await this.cancelled.stop();
    await this.engines.closeAll();
  }
}

/** What every pipeline worker app shares: NATS, the registry's configuration, engines, the publisher. */
@Module({})
export class PipelineRuntimeModule {
  static forRoot(service: 'extractor' | 'stager' | 'loader', config: WorkerConfig, logger: JsonLogger): DynamicModule {
    const shutdown = new AbortController();
    return {
      module: PipelineRuntimeModule,
      global: true,
      imports: [NatsRequesterModule.forRoot({ servers: config.nats.servers, name: service, requestTimeoutMs: config.nats.requestTimeoutMs, security: config.nats.security, role: service })],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        { provide: JsonLogger, useValue: logger },
        { provide: EngineRegistry, useValue: new EngineRegistry(undefined, poolSizingsOf(config), { allowLoopback: config.allowLoopbackTargets }, config.rebuild) },
        { provide: WORKER_SHUTDOWN, useValue: shutdown },
        { provide: RuntimeConfigClient, inject: [NatsRequester], useFactory: (requester: NatsRequester) => new RuntimeConfigClient(requester, new RuntimeConfigSeal(config.workerKey), undefined, { shutdown: shutdown.signal }) },
        // Publishes wait out a NATS outage in place (their handler keeps its message), and end at once on shutdown.
        { provide: PipelinePublisher, inject: [NATS_CONNECTION], useFactory: (connection: NatsConnection) => new PipelinePublisher(connection, { shutdown: shutdown.signal }) },
        // One per process: the consumers' host starts it; services ask it between steps of long work.
        {
          provide: CancelledWork,
          inject: [NATS_CONNECTION],
          useFactory: (connection: NatsConnection) =>
            new CancelledWork(connection, {
              onError: (error, activity) => logger.warn('cancellation broadcast problem', { activity, reason: error instanceof Error ? error.message : String(error) }),
            }),
        },
      ],
      exports: [WORKER_CONFIG, WORKER_SHUTDOWN, JsonLogger, EngineRegistry, RuntimeConfigClient, PipelinePublisher, CancelledWork],
    };
  }
}

/** The worker's health probes (PROBE_PORT): NATS answers, and its consumers run. List it beside PipelineConsumersHost. */
export function workerProbes(service: 'extractor' | 'stager' | 'loader', config: Pick<WorkerConfig, 'probes'>): Provider {
  return probeHostProvider(service, config.probes, [NATS_CONNECTION, PipelineConsumersHost], (connection: NatsConnection, host: PipelineConsumersHost) => [
    natsReachable(connection),
    host.consumersCheck,
  ]);
}

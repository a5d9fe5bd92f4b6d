import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { PipelineConsumers, isBatchLoaded, isBatchStagingApplied, isWorkFailed, type PipelineSubject } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { MAX_CLOCK_SKEW_LIMIT_SECONDS } from '@svc/config';
import { PipelineWorker, ensurePipelineStreams, ensureReplayRecords } from '@svc/messaging';
import { NATS_CONNECTION } from '@svc/messaging-nest';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { PipelineEventsService } from './pipeline-events.service';

/** The registry's durable consumers of completions and failures (every registry instance shares them). */
@Injectable()
export class PipelineEventsConsumers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly workers: PipelineWorker<PipelineSubject>[] = [];

  constructor(
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(REGISTRY_CONFIG) private readonly config: Pick<RegistryConfig, 'nats'>,
    private readonly events: PipelineEventsService,
    private readonly logger: JsonLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensurePipelineStreams(this.connection, { replicas: this.config.nats.streamReplicas });
    // Every gateway replica's replay records: a signature is valid while its date is within the skew of now, so up to
    // twice the longest skew any gateway may accept.
    await ensureReplayRecords(this.connection, { ttlMs: 2 * MAX_CLOCK_SKEW_LIMIT_SECONDS * 1000, replicas: this.config.nats.streamReplicas });
    const loaded = new PipelineWorker(this.connection, {
      ...PipelineConsumers.registryLoaded,
      ackWaitMs: this.config.nats.ackWaitMs,
      concurrency: 8,
      guard: isBatchLoaded,
      handle: (event) => this.events.batchLoaded(event),
      onGiveUp: async (_payload, reason) => this.logger.error('a completion could not be recorded', { reason }),
    });
    const stagingApplied = new PipelineWorker(this.connection, {
      ...PipelineConsumers.registryStagingApplied,
      ackWaitMs: this.config.nats.ackWaitMs,
      concurrency: 8,
      guard: isBatchStagingApplied,
      handle: (event) => this.events.batchStagingApplied(event),
      onGiveUp: async (_payload, reason) => this.logger.error('a staging commit could not be recorded', { reason }),
    });
    const failed = new PipelineWorker(this.connection, {
      ...PipelineConsumers.registryFailed,
      ackWaitMs: this.config.nats.ackWaitMs,
      concurrency: 4,
      guard: isWorkFailed,
      handle: (event) => this.events.workFailed(event),
      onGiveUp: async (_payload, reason) => this.logger.error('a failure report could not be recorded', { reason }),
    });
    for (const worker of [loaded, stagingApplied, failed] as PipelineWorker<PipelineSubject>[]) {
      await worker.start();
      this.workers.push(worker);
    }
  }

  /** Drain before NATS and the control database close. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.workers.map((worker) => worker.stop()));
  }
}

import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Subjects, healthSubject, type RegistryMetricsReply } from '@svc/contracts';
import { NatsRequester } from '@svc/messaging';
import { NATS_CONNECTION, natsReachable, readinessOf, type ReadinessCheck, type ReadinessReport } from '@svc/messaging-nest';
import { CachedSnapshot } from '../metrics/cached-snapshot';

/** How long one answer of the registry's metrics serves /metrics: scrapes cannot load the registry more than this. */
export const REGISTRY_SNAPSHOT_TTL_MS = 5000;

export interface HealthReport {
  status: 'ok' | 'degraded';
  registry: 'ok' | 'unreachable';
}

@Injectable()
export class HealthService implements BeforeApplicationShutdown {
  private readonly registrySnapshot = new CachedSnapshot(() => this.askRegistryMetrics(), REGISTRY_SNAPSHOT_TTL_MS);
  private readonly readinessChecks: ReadinessCheck[];
  private draining = false;

  constructor(
    private readonly requester: NatsRequester,
    @Inject(NATS_CONNECTION) connection: NatsConnection,
  ) {
    this.readinessChecks = [natsReachable(connection), { name: 'registry', check: () => this.askRegistryHealth() }];
  }

  /** The gateway is useful only while the registry answers over NATS. */
  async check(): Promise<HealthReport> {
    const registryAnswers = await this.askRegistryHealth()
      .then(() => true)
      .catch(() => false);
    return registryAnswers ? { status: 'ok', registry: 'ok' } : { status: 'degraded', registry: 'unreachable' };
  }

  /** /ready: NATS and the registry answer, and the gateway is not stopping. */
  ready(): Promise<ReadinessReport> {
    return readinessOf('api-gateway', this.readinessChecks, this.draining);
  }

  beforeApplicationShutdown(): void {
    this.draining = true;
  }

  private async askRegistryHealth(): Promise<void> {
    await this.requester.request(healthSubject('job-registry'), {}, 2000);
  }

  /** The registry's view of every replication, at most REGISTRY_SNAPSHOT_TTL_MS old, or null when it did not answer within 2 s. */
  replicationMetrics(): Promise<RegistryMetricsReply | null> {
    return this.registrySnapshot.get();
  }

  private async askRegistryMetrics(): Promise<RegistryMetricsReply | null> {
    const reply = await this.requester.request(Subjects.registryMetrics, {}, 2000).catch(() => null);
    return reply?.ok ? reply.value : null;
  }
}

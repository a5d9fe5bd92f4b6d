import { Injectable } from '@nestjs/common';
import { Subjects, healthSubject, type RegistryMetricsReply } from '@svc/contracts';
import { NatsRequester } from '@svc/messaging';
import { CachedSnapshot } from '../metrics/cached-snapshot';

/** How long one answer of the registry's metrics serves /metrics: scrapes cannot load the registry more than this. */
export const REGISTRY_SNAPSHOT_TTL_MS = 5000;

export interface HealthReport {
  status: 'ok' | 'degraded';
  registry: 'ok' | 'unreachable';
}

@Injectable()
export class HealthService {
  private readonly registrySnapshot = new CachedSnapshot(() => this.askRegistryMetrics(), REGISTRY_SNAPSHOT_TTL_MS);

  constructor(private readonly requester: NatsRequester) {}

  /** The gateway is useful only while the registry answers over NATS. */
  async check(): Promise<HealthReport> {
    const registryAnswers = await this.requester
      .request(healthSubject('job-registry'), {}, 2000)
      .then(() => true)
      .catch(() => false);
    return registryAnswers ? { status: 'ok', registry: 'ok' } : { status: 'degraded', registry: 'unreachable' };
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

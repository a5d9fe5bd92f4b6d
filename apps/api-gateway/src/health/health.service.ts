import { Injectable } from '@nestjs/common';
import { Subjects, healthSubject, type RegistryMetricsReply } from '@svc/contracts';
import { NatsRequester } from '@svc/messaging';

export interface HealthReport {
  status: 'ok' | 'degraded';
  registry: 'ok' | 'unreachable';
}

@Injectable()
export class HealthService {
  constructor(private readonly requester: NatsRequester) {}

  /** The gateway is useful only while the registry answers over NATS. */
  async check(): Promise<HealthReport> {
    const registryAnswers = await this.requester
      .request(healthSubject('job-registry'), {}, 2000)
      .then(() => true)
      .catch(() => false);
    return registryAnswers ? { status: 'ok', registry: 'ok' } : { status: 'degraded', registry: 'unreachable' };
  }

  /** The registry's view of every replication, or null when it does not answer within 2 s. */
  async replicationMetrics(): Promise<RegistryMetricsReply | null> {
    const reply = await this.requester.request(Subjects.registryMetrics, {}, 2000).catch(() => null);
    return reply?.ok ? reply.value : null;
  }
}

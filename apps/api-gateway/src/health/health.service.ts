import { Injectable } from '@nestjs/common';
import { healthSubject } from '@svc/contracts';
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
}

import { Inject, Injectable } from '@nestjs/common';
import { Subjects, type AlertRecord } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { NatsRequester } from '@svc/messaging';
import { AlertRepository, type AlertStore, type NewAlert } from '@svc/registry-store';

/** Stores an alert (Describe lists it) and publishes it on svc.events.v1.alert. */
@Injectable()
export class AlertsService {
  constructor(
    @Inject(AlertRepository) private readonly alerts: AlertStore,
    private readonly requester: NatsRequester,
    private readonly logger: JsonLogger,
  ) {}

  async raise(alert: NewAlert): Promise<AlertRecord> {
    const record = await this.alerts.record(alert);
    this.requester.publish(Subjects.alertRaised, record);
    this.logger.warn('alert raised', { replicationId: record.replicationId, kind: record.kind, alert: record.message });
    return record;
  }
}

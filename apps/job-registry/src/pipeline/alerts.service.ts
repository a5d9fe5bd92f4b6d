import { Inject, Injectable } from '@nestjs/common';
import { Subjects, type AlertRecord } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { NatsRequester } from '@svc/messaging';
import { AlertRepository, type AlertStore, type NewAlert, type ResolvedCondition } from '@svc/registry-store';

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

  /** Resolves the alerts conditions that ended had raised (they leave the active count; Describe shows why). */
  async resolve(replicationId: string, conditions: readonly ResolvedCondition[], resolution: string, now: Date): Promise<void> {
    const resolved = await this.alerts.resolve(replicationId, conditions, resolution, now);
    if (resolved > 0) this.logger.info('alerts resolved', { replicationId, resolved, resolution });
  }

  /**
   * Work of `tableName` moved data again: its Failure and RetentionDanger alerts are over, and so is a failure of the
   * whole replication (it works again).
   */
  resolveWorking(replicationId: string, tableName: string, now: Date): Promise<void> {
    const conditions: ResolvedCondition[] = [
      { kind: 'Failure', tableName },
      { kind: 'RetentionDanger', tableName },
      { kind: 'Failure', tableName: null },
    ];
    return this.resolve(replicationId, conditions, `work of ${tableName} succeeded again`, now);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { ALERT_DELIVERY_STATES, rpcOk, type AlertDeliveryState, type AlertTargetDeliveries, type RegistryMetricsReply, type RpcReply, type TableMetrics } from '@svc/contracts';
import {
  AlertRepository,
  AlertTargetRepository,
  type AlertTargetStore,
  ReplicationRepository,
  ServiceConfigurationRepository,
  TableStateRepository,
  ValidationRepository,
  type AlertStore,
  type ReplicationStore,
  type ServiceConfigurationStore,
  type StoredTableStatus,
  type TableStateStore,
  type ValidationStore,
} from '@svc/registry-store';
import { effectiveStatus } from '../replications/replication-status';
import { secondsInFlight } from '../replications/seconds-in-flight';
import { SourceWalHeld } from './source-wal-held';

/** Every replication's status and tables in four queries, whatever their number: what /metrics shows. */
@Injectable()
export class RegistryMetricsService {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    @Inject(ServiceConfigurationRepository) private readonly serviceConfiguration: ServiceConfigurationStore,
    @Inject(TableStateRepository) private readonly tableStates: TableStateStore,
    @Inject(AlertRepository) private readonly alerts: AlertStore,
    @Inject(ValidationRepository) private readonly validations: Pick<ValidationStore, 'lastByTable'>,
    private readonly walHeld: SourceWalHeld,
    @Inject(AlertTargetRepository) private readonly alertTargets: Pick<AlertTargetStore, 'list'>,
  ) {}

  async snapshot(now = new Date()): Promise<RpcReply<RegistryMetricsReply>> {
    const [listing, service, tables, activeAlerts, validated, targets] = await Promise.all([
      this.replications.list(),
      this.serviceConfiguration.get(),
      this.tableStates.listAll(),
      this.alerts.activeCounts(),
      this.validations.lastByTable(),
      this.alertTargets.list(),
    ]);
    return rpcOk({
      replications: listing.map((replication) => ({
        replicationId: replication.replicationId,
        replicationName: replication.replicationName,
        status: effectiveStatus(replication, service),
        tables: (tables.get(replication.replicationId) ?? []).map((table) => tableMetrics(table, now, validated.get(replication.replicationId)?.get(table.name))),
        sourceWalHeldBytes: this.walHeld.bytesOf(replication.replicationId),
      })),
      activeAlerts,
      alertDeliveries: targets.flatMap((target) =>
        ALERT_DELIVERY_STATES.map((state) => ({ target: target.name, type: target.type, state, count: countOf(target.deliveries, state) })),
      ),
    });
  }
}

function countOf(deliveries: AlertTargetDeliveries, state: AlertDeliveryState): number {
  return state === 'Pending' ? deliveries.pending : state === 'Delivered' ? deliveries.delivered : deliveries.failed;
}

function tableMetrics(table: StoredTableStatus, now: Date, validation: { state: string; mismatchedKeys: number; endedAt: Date } | undefined): TableMetrics {
  return {
    name: table.name,
    phase: table.phase,
    rowsSeeded: table.rowsSeeded,
    lagSeconds: table.lagSeconds,
    lastCycleAt: table.lastCycleAt ?? null,
    failing: table.lastError !== null,
    inFlightSeconds: secondsInFlight(table.workStartedAt ?? null, now),
    lastProgressAt: table.lastProgressAt ?? null,
    lastValidation: validation ? { state: validation.state, mismatchedKeys: validation.mismatchedKeys, endedAt: validation.endedAt.toISOString() } : null,
  };
}

import { Inject, Injectable } from '@nestjs/common';
import { rpcOk, type RegistryMetricsReply, type RpcReply, type TableMetrics } from '@svc/contracts';
import {
  AlertRepository,
  ReplicationRepository,
  ServiceConfigurationRepository,
  TableStateRepository,
  type AlertStore,
  type ReplicationStore,
  type ServiceConfigurationStore,
  type StoredTableStatus,
  type TableStateStore,
} from '@svc/registry-store';
import { effectiveStatus } from '../replications/replication-status';
import { secondsInFlight } from '../replications/seconds-in-flight';

/** Every replication's status and tables in four queries, whatever their number: what /metrics shows. */
@Injectable()
export class RegistryMetricsService {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    @Inject(ServiceConfigurationRepository) private readonly serviceConfiguration: ServiceConfigurationStore,
    @Inject(TableStateRepository) private readonly tableStates: TableStateStore,
    @Inject(AlertRepository) private readonly alerts: AlertStore,
  ) {}

  async snapshot(now = new Date()): Promise<RpcReply<RegistryMetricsReply>> {
    const [listing, service, tables, alertsRaised] = await Promise.all([
      this.replications.list(),
      this.serviceConfiguration.get(),
      this.tableStates.listAll(),
      this.alerts.countByKind(),
    ]);
    return rpcOk({
      replications: listing.map((replication) => ({
        replicationId: replication.replicationId,
        replicationName: replication.replicationName,
        status: effectiveStatus(replication, service),
        tables: (tables.get(replication.replicationId) ?? []).map((table) => tableMetrics(table, now)),
      })),
      alertsRaised,
    });
  }
}

function tableMetrics(table: StoredTableStatus, now: Date): TableMetrics {
  return {
    name: table.name,
    phase: table.phase,
    rowsSeeded: table.rowsSeeded,
    lagSeconds: table.lagSeconds,
    lastCycleAt: table.lastCycleAt ?? null,
    failing: table.lastError !== null,
    inFlightSeconds: secondsInFlight(table.workStartedAt ?? null, now),
    lastProgressAt: table.lastProgressAt ?? null,
  };
}

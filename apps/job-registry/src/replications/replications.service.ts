import { Inject, Injectable } from '@nestjs/common';
import {
  rpcOk,
  type AlterReplicationRequest,
  type CreateReplicationRequest,
  type CreateReplicationResponse,
  type ListReplicationsResponse,
  type ReplicationDescription,
  type RpcReply,
  type TableStatus,
} from '@svc/contracts';
import { validateMergedConfig } from '@svc/api-model';
import { databaseNameOf } from '@svc/connectors';
import { redactText } from '@svc/logging';
import {
  AlertRepository,
  ReplicationRepository,
  ServiceConfigurationRepository,
  TableStateRepository,
  changedConfigPaths,
  maskConfigSecrets,
  type AlertStore,
  type ChangeAuthor,
  type ReplicationStore,
  type ServiceConfigurationStore,
  type StoredReplication,
  type TableStateStore,
} from '@svc/registry-store';
import { mergeAlterRequest } from './alter-merge';
import { engineMismatches } from './engine-rules';
import { FALLBACK_REPLICATION_NAME, newReplicationConfig } from './new-replication-config';
import { REACHABILITY_PROBE, type ReachabilityProbe } from './reachability-probe';
import { inAlterTerms, reachabilityTargetForChanges } from './reachability-scope';
import { replicationBeingDeleted, replicationChangedConcurrently, replicationNotFound, validationFailed } from './replication-errors';
import { effectiveStatus, statusAfterAlter } from './replication-status';

/** The per-replication operations: Create, Alter, Describe, List, Delete and StartReplication with an id. */
@Injectable()
export class ReplicationsService {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    @Inject(ServiceConfigurationRepository) private readonly serviceConfiguration: ServiceConfigurationStore,
    @Inject(TableStateRepository) private readonly tableStates: TableStateStore,
    @Inject(AlertRepository) private readonly alerts: AlertStore,
    @Inject(REACHABILITY_PROBE) private readonly probe: ReachabilityProbe,
  ) {}

  /** Checks that everything the request names is reachable, then stores it; nothing is stored on failure. */
  async create(request: CreateReplicationRequest, author: ChangeAuthor): Promise<RpcReply<CreateReplicationResponse>> {
    const mismatched = engineMismatches(request);
    if (mismatched.length) return validationFailed(mismatched);
    const unreachable = await this.probe.check({
      source: { connectionString: request.source.connectionString, encryptDataInTransit: request.source.encryptDataInTransit },
      staging: { connectionString: request.staging.connectionString, encryptDataInTransit: request.staging.encryptDataInTransit },
      warehouse: request.warehouse,
    });
    if (unreachable.length) return validationFailed(unreachable);

    const name = databaseNameOf(request.source.connectionString) ?? FALLBACK_REPLICATION_NAME;
    const stored = await this.replications.insert({ status: 'Running', config: newReplicationConfig(request, name) }, author);
    // Seed §4.1: a new replication is reported as Running (Describe shows Stopped while the service is stopped).
    // The seed's note concerns replicated logins, which this service does not replicate.
    return rpcOk({ replicationId: stored.replicationId, status: 'Running', note: '' });
  }

  /**
   * Merges the request into the stored configuration, validates the result, re-checks reachability of what
   * changed only, then stores a new version. A refused change leaves the stored configuration as it was.
   */
  async alter(request: AlterReplicationRequest, author: ChangeAuthor): Promise<RpcReply<null>> {
    const { replicationId } = request;
    const current = await this.replications.get(replicationId);
    if (!current) return replicationNotFound(replicationId);
    if (current.status === 'Deleting') return replicationBeingDeleted(replicationId);

    const merged = mergeAlterRequest(current.config, request);
    if (!merged.ok) return validationFailed(merged.messages);
    const invalid = [...validateMergedConfig(merged.config), ...engineMismatches(merged.config, '{DestinationConnectionString}')];
    if (invalid.length) return validationFailed(invalid);

    const changedFields = changedConfigPaths(current.config, merged.config);
    const status = statusAfterAlter(current.status, request.dataReplication);
    if (changedFields.length === 0 && status === current.status) return rpcOk(null);

    const target = reachabilityTargetForChanges(merged.config, changedFields);
    if (target) {
      const unreachable = await this.probe.check(target);
      if (unreachable.length) return validationFailed(unreachable.map(inAlterTerms));
    }

    // Leaving Failed (DataReplication=true restarts it) clears the error that caused it.
    const lastError = current.status === 'Failed' && status !== 'Failed' ? null : current.lastError;
    if (changedFields.length === 0) {
      return (await this.replications.setStatus(replicationId, status, lastError)) ? rpcOk(null) : replicationNotFound(replicationId);
    }
    const updated = await this.replications.update(replicationId, current.version, { config: merged.config, status, lastError, changedFields }, author);
    return updated ? rpcOk(null) : replicationChangedConcurrently(replicationId);
  }

  async describe(replicationId: string): Promise<RpcReply<ReplicationDescription>> {
    const stored = await this.replications.get(replicationId);
    if (!stored) return replicationNotFound(replicationId);
    const [service, tables, alerts] = await Promise.all([
      this.serviceConfiguration.get(),
      this.tableStates.listByReplication(replicationId),
      this.alerts.listByReplication(replicationId),
    ]);
    return rpcOk({
      replicationId: stored.replicationId,
      replicationName: stored.config.replicationName,
      status: effectiveStatus(statusInputs(stored), service),
      createdAt: stored.createdAt.toISOString(),
      updatedAt: stored.updatedAt.toISOString(),
      configuration: maskConfigSecrets(stored.config),
      tables: tables.map(withoutCredentials),
      // Errors are written by workers from driver messages; strip any credential that slipped into one.
      lastError: stored.lastError === null ? null : redactText(stored.lastError),
      alerts,
    });
  }

  async list(): Promise<RpcReply<ListReplicationsResponse>> {
    const [listing, service] = await Promise.all([this.replications.list(), this.serviceConfiguration.get()]);
    return rpcOk({
      replications: listing.map((replication) => ({
        replicationId: replication.replicationId,
        replicationName: replication.replicationName,
        status: effectiveStatus(replication, service),
      })),
    });
  }

  /** Removes the replication and all its state (history, table states, alerts); warehouse data stays. */
  async delete(replicationId: string): Promise<RpcReply<null>> {
    return (await this.replications.delete(replicationId)) ? rpcOk(null) : replicationNotFound(replicationId);
  }

  /** StartReplication with an id: turns DataReplication on and clears a failure. */
  async start(replicationId: string, author: ChangeAuthor): Promise<RpcReply<null>> {
    const current = await this.replications.get(replicationId);
    if (!current) return replicationNotFound(replicationId);
    if (current.status === 'Deleting') return replicationBeingDeleted(replicationId);

    const config = { ...current.config, dataReplication: true };
    const changedFields = changedConfigPaths(current.config, config);
    if (changedFields.length) {
      const updated = await this.replications.update(replicationId, current.version, { config, status: 'Running', lastError: null, changedFields }, author);
      return updated ? rpcOk(null) : replicationChangedConcurrently(replicationId);
    }
    if (current.status === 'Running' && current.lastError === null) return rpcOk(null);
    return (await this.replications.setStatus(replicationId, 'Running', null)) ? rpcOk(null) : replicationNotFound(replicationId);
  }
}

function statusInputs(stored: StoredReplication): { status: StoredReplication['status']; dataReplication: boolean } {
  return { status: stored.status, dataReplication: stored.config.dataReplication };
}

function withoutCredentials(table: TableStatus): TableStatus {
  return table.lastError === null ? table : { ...table, lastError: redactText(table.lastError) };
}

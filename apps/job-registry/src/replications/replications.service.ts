import { Inject, Injectable } from '@nestjs/common';
import {
  rpcOk,
  statusDetailOf,
  tableKey,
  type AlterReplicationRequest,
  type CreateReplicationRequest,
  type AcknowledgeAlertsResponse,
  type CreateReplicationResponse,
  type ListReplicationsResponse,
  type ReplicationConfig,
  type ReplicationDescription,
  type RpcReply,
  type TableStatus,
  type WarehouseConfig,
} from '@svc/contracts';
import { fieldLabel, validateMergedConfig } from '@svc/api-model';
import { databaseNameOf } from '@svc/connectors';
import type { CaptureCheck } from '@svc/engines';
import { ExternalIdIssuer } from '@svc/crypto';
import { redactText } from '@svc/logging';
import {
  AlertRepository,
  ReplicationRepository,
  ServiceConfigurationRepository,
  TableStateRepository,
  ValidationRepository,
  WarehouseClaimRepository,
  changedConfigPaths,
  maskConfigSecrets,
  type AlertStore,
  type ChangeAuthor,
  type ReplicationStore,
  type ServiceConfigurationStore,
  type StoredReplication,
  type StoredTableStatus,
  type ReplicationScope,
  type TableStateStore,
  type ValidationStore,
  type WarehouseClaimStore,
} from '@svc/registry-store';
import { ctTimeoutMinutes } from '../pipeline/ct-timeout';
import { mergeAlterRequest } from './alter-merge';
import { engineMismatches } from './engine-rules';
import { externalIdAfterAlter, withIssuedExternalId, withoutIssuedFields } from './external-ids';
import { FALLBACK_REPLICATION_NAME, newReplicationConfig } from './new-replication-config';
import { REACHABILITY_PROBE, type DatabaseTarget, type ReachabilityProbe } from './reachability-probe';
import { DELETE_RELEASE_TIMEOUT_MS, REPLICATION_LIFECYCLE, type ReplicationLifecycle } from './replication-lifecycle';
import { inAlterTerms, reachabilityTargetForChanges, stagingPreparationNeeded, stagingPreparationOf } from './reachability-scope';
import { replicationBeingDeleted, replicationChangedConcurrently, replicationNotFound, serviceStoppedRefusal, validationFailed } from './replication-errors';
import { effectiveStatus, statusAfterAlter, stoppedReasonOf } from './replication-status';
import { warehouseNameCollisions } from '../pipeline/table-collisions';
import { TABLE_LIST_FIELDS, tableListProblems, type TableListField } from '../pipeline/table-existence';
import { selectTables } from '../pipeline/table-selection';
import { claimConflictMessages, warehouseClaimsOf, warehouseIdentity } from '../pipeline/warehouse-claims';
import { secondsInFlight } from './seconds-in-flight';

/** Who asks: the access key (recorded as the author of a change) and the replications it may see. */
export interface OperationCaller extends ChangeAuthor {
  scope: ReplicationScope;
}

/** What a configuration's tables are checked against: the warehouse tables other replications write. */
interface ClaimCheck {
  caller: OperationCaller;
  /** The replication being altered, whose own claims are no conflict. */
  replicationId?: string;
}

/** The per-replication operations: Create, Alter, Describe, List, Delete and StartReplication with an id. */
@Injectable()
export class ReplicationsService {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    @Inject(ServiceConfigurationRepository) private readonly serviceConfiguration: ServiceConfigurationStore,
    @Inject(TableStateRepository) private readonly tableStates: TableStateStore,
    @Inject(AlertRepository) private readonly alerts: AlertStore,
    @Inject(REACHABILITY_PROBE) private readonly probe: ReachabilityProbe,
    @Inject(REPLICATION_LIFECYCLE) private readonly lifecycle: ReplicationLifecycle,
    @Inject(WarehouseClaimRepository) private readonly claims: WarehouseClaimStore,
    @Inject(ExternalIdIssuer) private readonly externalIds: ExternalIdIssuer,
    @Inject(ValidationRepository) private readonly validations: Pick<ValidationStore, 'lastByTable'>,
  ) {}

  /**
   * Checks that everything the request names is reachable, then stores it; nothing is stored on failure. An IAMRole
   * gets its ExternalId first: the probe assumes the role with it, and a refusal tells the caller which one to trust.
   */
  async create(given: CreateReplicationRequest, author: OperationCaller): Promise<RpcReply<CreateReplicationResponse>> {
    const request = { ...given, warehouse: withIssuedExternalId(given.warehouse, author.accessKeyId, this.externalIds) };
    const mismatched = engineMismatches(request);
    if (mismatched.length) return validationFailed(mismatched);
    const unreachable = await this.probe.check({
      source: { connectionString: request.source.connectionString, encryptDataInTransit: request.source.encryptDataInTransit },
      staging: { connectionString: request.staging.connectionString, encryptDataInTransit: request.staging.encryptDataInTransit },
      warehouse: request.warehouse,
    });
    // Every problem at once: the tables are checked whenever the source answered, whatever else failed.
    const sourceUnreachable = unreachable.some((message) => message.startsWith('{Source\\'));
    const tableProblems = sourceUnreachable ? [] : await this.tableProblems(request, request.source, TABLE_LIST_FIELDS, { caller: author });
    const problems = [...unreachable, ...(tableProblems ?? [`{Source\\ConnectionString}: cannot list the source's tables`])];
    if (problems.length) return validationFailed(problems);

    const capture = await this.captureCheck(request);
    if (capture.problems.length) return validationFailed(capture.problems);
    const prepared = await this.probe.prepareStaging(stagingPreparationOf(request));
    if (prepared.problems.length) return validationFailed(prepared.problems);

    const name = databaseNameOf(request.source.connectionString) ?? FALLBACK_REPLICATION_NAME;
    const config = newReplicationConfig(request, name);
    const namesake = await this.namesakeOf(config.replicationName, author);
    const stored = await this.replications.insert({ status: 'Running', config }, author);
    // Seed §4.1: a new replication is reported as Running (Describe shows Stopped while the service is stopped).
    // The Note says how the source's changes are captured (PostgreSQL: from the log, or by triggers and why), that a
    // source has no table yet, and what preparing the staging database did to logins (SQL Server); else it is empty.
    const { externalId } = request.warehouse;
    const note = [capture.note, prepared.note, namesake].filter((part) => part !== '').join(' ');
    return rpcOk({ replicationId: stored.replicationId, status: 'Running', note, ...(externalId !== undefined && { warehouse: { externalId } }) });
  }

  /**
   * A Note when a replication the caller may see already carries this name (names default to the source database's, so
   * two replications of one source look alike in List, the console and the metrics); empty otherwise.
   */
  private async namesakeOf(replicationName: string, caller: OperationCaller): Promise<string> {
    const visible = await this.replications.list(caller.scope === 'Own' ? caller.accessKeyId : undefined);
    const same = visible.find((replication) => replication.replicationName.toLowerCase() === replicationName.toLowerCase());
    return same === undefined
      ? ''
      : `Replication ${same.replicationId} is named '${same.replicationName}' too: set ReplicationName (AlterWarehouseReplication) to tell them apart.`;
  }

  /**
   * Merges the request into the stored configuration, validates the result, re-checks reachability of what
   * changed only, then stores a new version. A refused change leaves the stored configuration as it was.
   */
  async alter(request: AlterReplicationRequest, author: OperationCaller): Promise<RpcReply<null>> {
    const { replicationId } = request;
    const current = await this.replications.get(replicationId);
    if (!current) return replicationNotFound(replicationId);
    if (current.status === 'Deleting') return replicationBeingDeleted(replicationId);

    const merged = mergeAlterRequest(current.config, request);
    if (!merged.ok) return validationFailed(merged.messages);
    const invalid = [...validateMergedConfig(withoutIssuedFields(merged.config)), ...engineMismatches(merged.config, '{DestinationConnectionString}')];
    if (invalid.length) return validationFailed(invalid);
    const owner = current.ownerAccessKeyId ?? current.replicationId;
    merged.config.warehouse = externalIdAfterAlter(current.config.warehouse, merged.config.warehouse, owner, this.externalIds);

    const changedFields = changedConfigPaths(current.config, merged.config);
    const status = statusAfterAlter(current.status, request.dataReplication, changedFields);
    if (changedFields.length === 0 && status === current.status) return rpcOk(null);

    const target = reachabilityTargetForChanges(merged.config, changedFields);
    if (target) {
      const unreachable = await this.probe.check(target);
      if (unreachable.length) return validationFailed(unreachable.map(inAlterTerms));
    }
    if (changedFields.includes('source.connectionString')) {
      // Another source is checked as Create checks one: its login and server must let its changes be captured.
      const capture = await this.captureCheck(merged.config);
      if (capture.problems.length) return validationFailed(capture.problems.map(inAlterTerms));
    }
    if (stagingPreparationNeeded(changedFields)) {
      // Alter's response has no Note: logins created for a new staging database are announced by nothing but its docs.
      const prepared = await this.probe.prepareStaging(stagingPreparationOf(merged.config));
      if (prepared.problems.length) return validationFailed(prepared.problems.map(inAlterTerms));
    }
    const listsToCheck = tableListsToCheck(changedFields);
    if (listsToCheck.length || changedFields.some(changesWarehouseTables)) {
      // A list that changed is checked against the source like at Create; when the source cannot be listed now
      // the Alter is refused (try again), since a table that does not exist would otherwise be accepted silently.
      const claimCheck = { caller: author, replicationId };
      const tableProblems = await this.tableProblems(merged.config, merged.config.source, listsToCheck, claimCheck);
      if (tableProblems === null && listsToCheck.length) return validationFailed([cannotCheckTables(listsToCheck)]);
      if (tableProblems?.length) return validationFailed(tableProblems);
    }

    // Leaving Failed (DataReplication=true restarts it) clears the error that caused it.
    const lastError = current.status === 'Failed' && status !== 'Failed' ? null : current.lastError;
    if (changedFields.length === 0) {
      if (!(await this.replications.setStatus(replicationId, status, lastError))) return replicationNotFound(replicationId);
    } else {
      const updated = await this.replications.update(replicationId, current.version, { config: merged.config, status, lastError, changedFields }, author);
      if (!updated) return replicationChangedConcurrently(replicationId);
      await this.lifecycle.altered(replicationId, current.config, merged.config, changedFields);
    }
    if (status === 'Running' && current.status !== 'Running') await this.lifecycle.resumed(replicationId);
    return rpcOk(null);
  }

  /**
   * `errorDetails`: the caller may read what servers said of failures (ERROR_DETAILS_PERMISSION), shown as
   * LastErrorDetail next to each classified lastError; without it the detail is left out.
   */
  async describe(replicationId: string, access: { errorDetails: boolean } = { errorDetails: false }): Promise<RpcReply<ReplicationDescription>> {
    const stored = await this.replications.get(replicationId);
    if (!stored) return replicationNotFound(replicationId);
    const [service, tables, alerts, validated] = await Promise.all([
      this.serviceConfiguration.get(),
      this.tableStates.listByReplication(replicationId),
      this.alerts.listByReplication(replicationId),
      this.validations.lastByTable(replicationId),
    ]);
    const lastValidationOf = (name: string) => {
      const last = validated.get(replicationId)?.get(name);
      return last && { lastValidation: { validationId: last.validationId, state: last.state, mismatchedKeys: last.mismatchedKeys, endedAt: last.endedAt.toISOString() } };
    };
    const tablesInError = tables.filter((table) => table.phase === 'Error').length;
    const statusDetail = statusDetailOf(tables.length, tablesInError);
    const stoppedReason = stoppedReasonOf(statusInputs(stored), service);
    return rpcOk({
      replicationId: stored.replicationId,
      replicationName: stored.config.replicationName,
      status: effectiveStatus(statusInputs(stored), service),
      tableCount: tables.length,
      tablesInError,
      ...(statusDetail !== undefined && { statusDetail }),
      ...(stoppedReason !== undefined && { stoppedReason }),
      createdAt: stored.createdAt.toISOString(),
      updatedAt: stored.updatedAt.toISOString(),
      configuration: maskConfigSecrets(stored.config),
      tables: tables.map((table) => ({
        ...withErrorDetail(withoutCredentials(describedTable(table, stored.config.ctProcessTimeoutInMinutes, new Date())), access.errorDetails),
        ...lastValidationOf(table.name),
      })),
      // Errors are written by workers; strip any credential that slipped into one.
      lastError: stored.lastError === null ? null : redactText(stored.lastError),
      ...(access.errorDetails && stored.lastErrorDetail !== null && { lastErrorDetail: redactText(stored.lastErrorDetail) }),
      alerts,
    });
  }

  /** Every replication, or those owned by one access key. */
  async list(ownedBy?: string): Promise<RpcReply<ListReplicationsResponse>> {
    const [listing, service, counts] = await Promise.all([this.replications.list(ownedBy), this.serviceConfiguration.get(), this.tableStates.errorCounts()]);
    return rpcOk({
      replications: listing.map((replication) => {
        const { tableCount, tablesInError } = counts.get(replication.replicationId) ?? { tableCount: 0, tablesInError: 0 };
        const statusDetail = statusDetailOf(tableCount, tablesInError);
        const stoppedReason = stoppedReasonOf(replication, service);
        return {
          replicationId: replication.replicationId,
          replicationName: replication.replicationName,
          status: effectiveStatus(replication, service),
          tableCount,
          tablesInError,
          ...(statusDetail !== undefined && { statusDetail }),
          ...(stoppedReason !== undefined && { stoppedReason }),
        };
      }),
    });
  }

  /**
   * Stops the job, removes its change tracking from the source and all its state (history, table states,
   * alerts); warehouse data stays. When the source cannot be cleaned now, the replication stays Deleting
   * (Describe says why) and the scheduler tries again every minute.
   */
  async delete(replicationId: string): Promise<RpcReply<null>> {
    const current = await this.replications.get(replicationId);
    if (!current) return replicationNotFound(replicationId);
    if (!(await this.replications.setStatus(replicationId, 'Deleting', null))) return replicationNotFound(replicationId);
    try {
      await this.lifecycle.remove(replicationId, DELETE_RELEASE_TIMEOUT_MS);
    } catch (error) {
      const reason = error instanceof Error ? redactText(error.message) : 'unknown error';
      await this.replications.setStatus(replicationId, 'Deleting', `could not remove change tracking from the source yet (retried every minute): ${reason}`);
    }
    return rpcOk(null);
  }

  /**
   * Field errors of the table lists against the source's tables: names in `lists` the replication would never
   * move, tables of the whole selection that would share a warehouse table (DESIGN §6), and tables whose warehouse
   * table another replication already writes. Null when the source's tables cannot be listed.
   */
  /**
   * Whether the source's login can capture the changes of the keyed tables the request replicates, and how (the Note's
   * first words); a source without tables gets a Note that says so and when later tables are picked up.
   */
  private async captureCheck(request: Pick<CreateReplicationRequest, 'source' | 'tablesToInclude' | 'reseedingSchedule'>): Promise<CaptureCheck> {
    const tables = await this.probe.listSourceTables(request.source).catch(() => null);
    if (tables === null) return { problems: [], note: '' };
    if (tables.length === 0) {
      return { problems: [], note: 'The source has no tables yet: tables created in it later are found within a minute and replicated as they appear.' };
    }
    const tracked = new Set(selectTables(request, tables).filter((table) => table.tracked).map((table) => table.tableName));
    const keyed = tables.filter((listed) => tracked.has(tableKey(listed.table))).map((listed) => listed.table);
    const check = await this.probe.checkCapture(request.source, keyed, request.source.changeTrackingRetentionPeriod).catch(() => null);
    if (check === null) return { problems: [`{Source\\ConnectionString}: cannot read what the login may do to capture changes`], note: '' };
    return { problems: check.problems.map((problem) => `{Source\\ConnectionString}: ${problem}`), note: check.note };
  }

  private async tableProblems(
    selection: Pick<ReplicationConfig, 'tablesToInclude' | 'reseedingSchedule'> & { warehouse: Pick<WarehouseConfig, 'url' | 'databaseName' | 'databaseSchema'> },
    source: DatabaseTarget,
    lists: readonly TableListField[],
    claimCheck: ClaimCheck,
  ): Promise<string[] | null> {
    const tables = await this.probe.listSourceTables(source).catch(() => null);
    if (tables === null) return null;
    const { warehouse } = selection;
    const claims = warehouseClaimsOf(warehouse, selectTables(selection, tables));
    const conflicts = await this.claims.conflicts(warehouseIdentity(warehouse), claims, claimCheck.replicationId);
    const { caller } = claimCheck;
    const mayName = ({ ownerAccessKeyId }: { ownerAccessKeyId: string | null }) => caller.scope === 'All' || ownerAccessKeyId === caller.accessKeyId;
    return [...tableListProblems(selection, tables, lists), ...warehouseNameCollisions(selection, tables), ...claimConflictMessages(conflicts, mayName)];
  }

  /**
   * StartReplication with an id: turns DataReplication on and clears a failure. Refused (a Conflict: HTTP 400, as the seed
   * answers every rejected request; nothing changed) while the whole service is stopped: the replication would still
   * move nothing, and an OK would say otherwise.
   */
  async start(replicationId: string, author: ChangeAuthor): Promise<RpcReply<null>> {
    const current = await this.replications.get(replicationId);
    if (!current) return replicationNotFound(replicationId);
    if (current.status === 'Deleting') return replicationBeingDeleted(replicationId);
    if ((await this.serviceConfiguration.get()).serviceStopped) return serviceStoppedRefusal(replicationId);

    const config = { ...current.config, dataReplication: true };
    const changedFields = changedConfigPaths(current.config, config);
    if (changedFields.length) {
      const updated = await this.replications.update(replicationId, current.version, { config, status: 'Running', lastError: null, changedFields }, author);
      if (!updated) return replicationChangedConcurrently(replicationId);
    } else if (current.status !== 'Running' || current.lastError !== null) {
      if (!(await this.replications.setStatus(replicationId, 'Running', null))) return replicationNotFound(replicationId);
    }
    // Tables in Error and tables waiting out a backoff are tried again now.
    await this.lifecycle.resumed(replicationId);
    return rpcOk(null);
  }

  /** AcknowledgeAlerts: the named active alerts of the replication, or all of them, leave the active count. */
  async acknowledgeAlerts(replicationId: string, alertIds: readonly string[] | null, by: string): Promise<RpcReply<AcknowledgeAlertsResponse>> {
    if (!(await this.replications.get(replicationId))) return replicationNotFound(replicationId);
    return rpcOk({ acknowledged: await this.alerts.acknowledge(replicationId, alertIds, by, new Date()) });
  }

  /** StopReplication: turns DataReplication off (as AlterWarehouseReplication DataReplication=false does); the others go on. */
  stop(replicationId: string, author: OperationCaller): Promise<RpcReply<null>> {
    return this.alter({ replicationId, dataReplication: false }, author);
  }
}

/** Whether a changed path moves the replication's tables to other warehouse tables (or adds some). */
function changesWarehouseTables(path: string): boolean {
  return path.startsWith('reseedingSchedule.') || ['warehouse.url', 'warehouse.databaseName', 'warehouse.databaseSchema'].includes(path);
}

/** The table lists an Alter changed; all of them when the source itself changed. */
function tableListsToCheck(changedFields: readonly string[]): TableListField[] {
  if (changedFields.includes('source.connectionString')) return [...TABLE_LIST_FIELDS];
  return TABLE_LIST_FIELDS.filter((field) => changedFields.includes(field));
}

function cannotCheckTables([first = 'tablesToInclude']: readonly TableListField[]): string {
  return `${fieldLabel(first.split('.'))}: the source's tables cannot be listed now, so the tables cannot be checked; send the change again when the source answers`;
}

function statusInputs(stored: StoredReplication): { status: StoredReplication['status']; dataReplication: boolean } {
  return { status: stored.status, dataReplication: stored.config.dataReplication };
}

function describedTable({ ctTimeoutLevel, ...table }: StoredTableStatus, configuredTimeoutMinutes: number, now: Date): TableStatus {
  return {
    ...table,
    ctTimeoutInMinutes: ctTimeoutMinutes(configuredTimeoutMinutes, ctTimeoutLevel),
    inFlightSeconds: secondsInFlight(table.workStartedAt ?? null, now),
  };
}

/** The table's error detail for a caller allowed to read it, redacted once more; left out for any other. */
function withErrorDetail({ lastErrorDetail, ...table }: TableStatus, allowed: boolean): TableStatus {
  return allowed && typeof lastErrorDetail === 'string' ? { ...table, lastErrorDetail: redactText(lastErrorDetail) } : table;
}

function withoutCredentials(table: TableStatus): TableStatus {
  return table.lastError === null ? table : { ...table, lastError: redactText(table.lastError) };
}

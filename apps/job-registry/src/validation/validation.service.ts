import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  parseTableKey,
  rpcError,
  rpcOk,
  tableKey,
  type DescribeValidationRequest,
  type RepairValidationRequest,
  type RepairValidationResponse,
  type RpcReply,
  type StartValidationRequest,
  type StartValidationResponse,
  type ValidationDescription,
} from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { JsonLogger } from '@svc/logging';
import {
  ReplicationRepository,
  TableStateRepository,
  ValidationRepository,
  type NewValidationTable,
  type ReplicationStore,
  type StoredTableStatus,
  type TableStateStore,
  type ValidationStore,
} from '@svc/registry-store';
import { replicationNotFound } from '../replications/replication-errors';
import type { OperationCaller } from '../replications/replications.service';
import { ValidationOperations } from '../replications/validation-operations';
import { ValidationWake } from './validation-wake';

const TABLES_TO_INCLUDE = fieldLabel(['tablesToInclude']);
const VALIDATION_ID = fieldLabel(['validationId']);
const REPLICATION_ID = fieldLabel(['replicationId']);

/** Why a table is not compared now; null when it is. */
function skipReason(table: StoredTableStatus): string | null {
  if (table.phase === 'Tracking' || table.phase === 'Untracked') return null;
  return `its phase is ${table.phase}: a table is compared once its seed has completed`;
}

function newValidationTable(table: StoredTableStatus): NewValidationTable {
  const reason = skipReason(table);
  return { tableName: table.name, state: reason === null ? 'Pending' : 'Skipped', reason };
}

/** StartReplicationValidation and DescribeReplicationValidation: validations stored per table, run by the extractors. */
@Injectable()
export class ValidationService extends ValidationOperations {
  constructor(
    @Inject(ReplicationRepository) private readonly replications: Pick<ReplicationStore, 'get'>,
    @Inject(TableStateRepository) private readonly tableStates: Pick<TableStateStore, 'listByReplication'>,
    @Inject(ValidationRepository) private readonly validations: Pick<ValidationStore, 'create' | 'createScheduled' | 'startRevalidations' | 'describe' | 'requestRepair'>,
    private readonly wake: ValidationWake,
    private readonly logger: JsonLogger,
  ) {
    super();
  }

  async start(request: StartValidationRequest, caller: OperationCaller, now = new Date()): Promise<RpcReply<StartValidationResponse>> {
    const { replicationId } = request;
    if (!(await this.replications.get(replicationId))) return replicationNotFound(replicationId);
    const tables = await this.tableStates.listByReplication(replicationId);
    const chosen = this.chosenTables(tables, request.tablesToInclude, replicationId);
    if ('problem' in chosen) return rpcError(chosen.code, [chosen.problem]);
    const validationId = randomUUID();
    await this.validations.create(validationId, replicationId, chosen.tables.map(newValidationTable), now, false);
    this.logger.info('validation requested', { replicationId, validationId, tables: chosen.tables.length, requestId: caller.requestId });
    this.wake.wake();
    return rpcOk({ replicationId, validationId });
  }

  /**
   * A scheduled validation of every table (ValidationSchedule), unless one is open or one was requested after `notSince`;
   * its id, or null when none was started.
   */
  async startScheduled(replicationId: string, notSince: Date, now = new Date()): Promise<string | null> {
    const tables = await this.tableStates.listByReplication(replicationId);
    if (tables.length === 0) return null;
    const validationId = randomUUID();
    if (!(await this.validations.createScheduled(validationId, replicationId, tables.map(newValidationTable), now, notSince))) return null;
    this.logger.info('scheduled validation started', { replicationId, validationId, tables: tables.length });
    this.wake.wake();
    return validationId;
  }

  /** Validations of the tables repaired by a reseed that has completed since; their ids. */
  async startRevalidations(now = new Date()): Promise<string[]> {
    const started = await this.validations.startRevalidations(randomUUID, now);
    for (const { replicationId, validationId, tables } of started) this.logger.info('validation after a repair by reseed started', { replicationId, validationId, tables: tables.length });
    if (started.length > 0) this.wake.wake();
    return started.map((validation) => validation.validationId);
  }

  async describe(request: DescribeValidationRequest): Promise<RpcReply<ValidationDescription>> {
    const { replicationId, validationId } = request;
    if (!(await this.replications.get(replicationId))) return replicationNotFound(replicationId);
    const description = await this.validations.describe(replicationId, validationId);
    if (description !== null) return rpcOk(description);
    return validationId === undefined
      ? rpcError(ErrorCode.NotFound, [`${REPLICATION_ID}: replication '${replicationId}' has not been validated yet`])
      : rpcError(ErrorCode.NotFound, [`${VALIDATION_ID}: replication '${replicationId}' has no validation '${validationId}'`]);
  }

  /**
   * RepairReplication: the validation's Mismatched tables (or those of TablesToInclude, each of which must be one) are
   * compared again and their differing keys applied through the pipeline as a change cycle, then compared once more.
   */
  async repair(request: RepairValidationRequest, caller: OperationCaller, now = new Date()): Promise<RpcReply<RepairValidationResponse>> {
    const { replicationId, validationId } = request;
    if (!(await this.replications.get(replicationId))) return replicationNotFound(replicationId);
    const description = await this.validations.describe(replicationId, validationId);
    if (description === null) return rpcError(ErrorCode.NotFound, [`${VALIDATION_ID}: replication '${replicationId}' has no validation '${validationId}'`]);
    const byName = new Map(description.tables.map((table) => [table.name, table]));
    let names: string[];
    if (request.tablesToInclude === undefined) {
      names = description.tables.filter((table) => table.state === 'Mismatched').map((table) => table.name);
      if (names.length === 0) return rpcError(ErrorCode.ValidationFailed, [`${VALIDATION_ID}: validation '${validationId}' found no Mismatched table to repair`]);
    } else {
      names = [];
      for (const name of request.tablesToInclude) {
        const ref = parseTableKey(name);
        const table = ref === null ? undefined : byName.get(tableKey(ref));
        if (table === undefined) return rpcError(ErrorCode.ValidationFailed, [`${TABLES_TO_INCLUDE}: table '${name}' is not part of validation '${validationId}'`]);
        if (table.state !== 'Mismatched') return rpcError(ErrorCode.ValidationFailed, [`${TABLES_TO_INCLUDE}: table '${name}' is ${table.state}: only a Mismatched table is repaired`]);
        names.push(table.name);
      }
    }
    const queued = await this.validations.requestRepair(validationId, [...new Set(names)], now);
    this.logger.info('repair requested', { replicationId, validationId, tables: queued.length, requestId: caller.requestId });
    this.wake.wake();
    return rpcOk({ replicationId, validationId, tables: queued });
  }

  private chosenTables(
    tables: readonly StoredTableStatus[],
    names: readonly string[] | undefined,
    replicationId: string,
  ): { tables: StoredTableStatus[] } | { problem: string; code: ErrorCode } {
    if (names === undefined) {
      if (tables.length === 0) return { problem: `${REPLICATION_ID}: replication '${replicationId}' has no tables yet`, code: ErrorCode.ValidationFailed };
      return { tables: [...tables] };
    }
    const byName = new Map(tables.map((table) => [table.name, table]));
    const chosen = new Map<string, StoredTableStatus>();
    for (const name of names) {
      const ref = parseTableKey(name);
      const table = ref === null ? undefined : byName.get(tableKey(ref));
      if (table === undefined) return { problem: `${TABLES_TO_INCLUDE}: table '${name}' is not part of replication '${replicationId}'`, code: ErrorCode.ValidationFailed };
      chosen.set(table.name, table);
    }
    return { tables: [...chosen.values()] };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, guardValidationReport, rpcError, rpcOk, tableKey, type RpcReply, type ValidationReportReply, type ValidationReportRequest } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { TableStateRepository, ValidationRepository, type TableStateStore, type ValidationOutcome, type ValidationStore } from '@svc/registry-store';
import { AlertsService } from '../pipeline/alerts.service';
import { PipelineLifecycle } from '../pipeline/replication-lifecycle.service';
import { mismatchAlert, outcomeOfFailure, outcomeOfResult } from './validation-outcome';

/** What extractors report of the tables they compare: progress, results, failures; answered with the table's watermark. */
@Injectable()
export class ValidationReportsService {
  constructor(
    @Inject(ValidationRepository) private readonly validations: Pick<ValidationStore, 'recordProgress' | 'finish' | 'revalidateAfterReseed'>,
    @Inject(TableStateRepository) private readonly tableStates: Pick<TableStateStore, 'listByReplication'>,
    @Inject(AlertsService) private readonly alerts: Pick<AlertsService, 'raise' | 'resolve'>,
    @Inject(PipelineLifecycle) private readonly lifecycle: Pick<PipelineLifecycle, 'reseedTable'>,
    private readonly logger: JsonLogger,
  ) {}

  async report(message: unknown, now = new Date()): Promise<RpcReply<ValidationReportReply>> {
    const guarded = guardValidationReport(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const request: ValidationReportRequest = guarded.value;
    const tableName = tableKey(request.table);
    const current = await this.record(request, tableName, now);
    const table = (await this.tableStates.listByReplication(request.replicationId)).find((state) => state.name === tableName);
    return rpcOk({ watermark: table?.lastVersion ?? null, current });
  }

  private async record(request: ValidationReportRequest, tableName: string, now: Date): Promise<boolean> {
    const { validationId, workId, report } = request;
    switch (report.kind) {
      case 'progress':
        return this.validations.recordProgress(validationId, tableName, workId, report, now);
      case 'result': {
        const finished = await this.finish(request, tableName, outcomeOfResult(report), now);
        if (finished && report.repair?.reseed) {
          // Marked first: a reseed that starts is then always followed by a validation of its table (ValidationScheduler).
          await this.validations.revalidateAfterReseed(request.validationId, tableName, now);
          await this.lifecycle.reseedTable(request.replicationId, tableName, report.repair.reseed);
        }
        return finished;
      }
      case 'failed':
        return this.finish(request, tableName, outcomeOfFailure(report), now);
    }
  }

  private async finish(request: ValidationReportRequest, tableName: string, outcome: ValidationOutcome, now: Date): Promise<boolean> {
    const { replicationId, validationId, workId } = request;
    const finished = await this.validations.finish(validationId, tableName, workId, outcome, now);
    if (!finished) return false;
    this.logger.info('table validated', { replicationId, validationId, table: tableName, state: outcome.state, mismatchedKeys: outcome.missingKeys + outcome.extraKeys + outcome.differentKeys });
    if (outcome.state === 'Mismatched') await this.alerts.raise({ replicationId, kind: 'Validation', message: mismatchAlert(tableName, validationId, outcome), tableName });
    else if (outcome.state === 'Validated' || outcome.state === 'Repaired') {
      const found = outcome.state === 'Repaired' ? 'repaired' : 'equal to the source';
      await this.alerts.resolve(replicationId, [{ kind: 'Validation', tableName }], `validation ${validationId} found the table ${found}`, now);
    }
    return true;
  }
}

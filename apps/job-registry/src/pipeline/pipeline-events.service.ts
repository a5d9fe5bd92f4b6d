import { Inject, Injectable } from '@nestjs/common';
import type { BatchLoaded, BatchStagingApplied, RpcReply, WorkAttemptReply, WorkFailed } from '@svc/contracts';
import { ErrorCode, guardBatchLoaded, guardWorkAttempt, guardWorkProgress, rpcError, rpcOk, tableKey } from '@svc/contracts';
import { JsonLogger, replicationLog } from '@svc/logging';
import { BatchHalvesRepository, PipelineStateRepository, ReplicationRepository, type ReplicationStore, type ReportingWork } from '@svc/registry-store';
import { AlertsService } from './alerts.service';
import { TABLE_RETRY_BACKOFF, retryDelayMs } from './failure-backoff';
import { MetricsHistoryService } from './metrics-history.service';
import { SchedulerWake } from './scheduler-wake';
import { SeedPlansService } from './seed-plans.service';
import { failureEvent } from './work-failure-event';

/** Completions and failures reported by the pipeline move table state; the watermark moves only here. */
@Injectable()
export class PipelineEventsService {
  constructor(
    private readonly state: PipelineStateRepository,
    private readonly alerts: AlertsService,
    private readonly logger: JsonLogger,
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
    private readonly metricsHistory: MetricsHistoryService,
    private readonly schedulerWake: SchedulerWake,
    private readonly seedPlans: SeedPlansService,
    private readonly halves: BatchHalvesRepository,
  ) {}

  /**
   * The loader's report. A batch staging applies at the same time (awaitsStaging) is complete only when staging's
   * report is in too: until then the loader's is kept (batch_halves) and nothing moves.
   */
  async batchLoaded(event: BatchLoaded, now = new Date()): Promise<void> {
    if (event.awaitsStaging !== true) return this.batchApplied(event, now);
    const key = { workId: event.workId, batchId: event.batchId, epoch: event.epoch ?? 0 };
    if (!(await this.halves.loaded(key, event))) return;
    await this.batchApplied(event, now);
    await this.halves.forget(key);
  }

  /** Staging's report of a batch the loaders took before its commit: completes the batch when the loader's is in. */
  async batchStagingApplied(event: BatchStagingApplied, now = new Date()): Promise<void> {
    const key = { workId: event.workId, batchId: event.batchId, epoch: event.epoch };
    const loaded = await this.halves.stagingApplied(key);
    if (loaded === null) return;
    const report = guardBatchLoaded(loaded);
    if (!report.ok) {
      this.logger.error('a kept loader report does not read as one; the batch is left to its work\'s timeout', { workId: event.workId, batchId: event.batchId, problems: report.problems });
      return;
    }
    await this.batchApplied(report.value, now);
    await this.halves.forget(key);
  }

  /** A batch in staging and in the warehouse: the table's state moves. */
  private async batchApplied(event: BatchLoaded, now: Date): Promise<void> {
    const tableName = tableKey(event.table);
    const { replicationId, workId } = event;
    /** What the per-cycle log line says; null while a seed is still loading parts. */
    let loaded: Record<string, unknown> | null = null;
    let moved: boolean;
    let cycle: { lagSeconds: number; durationMs: number | null } | undefined;
    if (event.kind === 'seed' && event.seedChunkOf !== undefined) {
      moved =
        event.epoch !== undefined &&
        (await this.seedPlans.chunkLoaded({ replicationId, tableName, workId, epoch: event.epoch, seedId: event.seedChunkOf, chunk: event.part ?? 0, rows: event.rowCount }, now));
    } else if (event.kind === 'seed' && !event.final) {
      moved = await this.state.recordSeedProgress(replicationId, tableName, reportingWork(event), event.rowCount, now);
    } else if (event.kind === 'seed') {
      moved = await this.state.completeSeed(replicationId, tableName, reportingWork(event), event.version, event.rowCount, now, event.sourceIncarnation ?? null);
      loaded = { kind: 'seed', rows: event.rowCount, startVersion: event.version };
    } else {
      const lagSeconds = Math.max(0, (Date.parse(event.loadedAt) - Date.parse(event.extractedAt)) / 1000);
      const reseedReason = filledColumnsReseedReason(event.filledColumns ?? []);
      // A batch that more batches of its work follow moves the watermark and leaves the work in flight.
      const following = event.final === false && reseedReason === null ? event.fromVersion : undefined;
      const completed = following !== undefined
        ? await this.state.recordChangesProgress(
            replicationId,
            tableName,
            reportingWork(event),
            { fromVersion: following, toVersion: event.version, ...(event.sourceIncarnation !== undefined && { incarnation: event.sourceIncarnation }) },
            event.rowCount,
            lagSeconds,
            now,
          )
        : await this.state.completeChanges(replicationId, tableName, reportingWork(event), event.version, event.rowCount, lagSeconds, now, reseedReason, event.sourceIncarnation ?? null);
      moved = completed !== null;
      if (completed && reseedReason) await this.alerts.raise({ replicationId, kind: 'Reseed', message: `${tableName}: ${reseedReason}`, tableName });
      const durationMs = completed?.startedAt ? now.getTime() - completed.startedAt.getTime() : null;
      cycle = { lagSeconds, durationMs };
      loaded = { kind: 'changes', rows: event.rowCount, fromVersion: completed?.fromVersion ?? null, toVersion: event.version, durationMs, lagSeconds, ...(following !== undefined && { more: true }) };
    }
    if (!moved) {
      this.logger.debug('completion of work no longer in flight ignored', { replicationId, table: tableName, workId });
      return;
    }
    // Work of the table moved data: its failure and retention alerts, and the replication's own failure, are over.
    await this.alerts.resolveWorking(replicationId, tableName, now);
    // A cycle that carried rows is followed at once: its table's next cycle is due now, not at the scheduler's next tick.
    // (Not after seeds: a thousand finishing would only multiply passes, measured as registry CPU in a 1,000-table seed.)
    if (event.kind === 'changes' && event.rowCount > 0 && event.final !== false) this.schedulerWake.request();
    await this.metricsHistory.record({ replicationId, tableName, at: now, rowsApplied: event.rowCount, cycle });
    const schemaChanges = event.schemaChanges ?? [];
    const suspectedRenames = event.suspectedRenames ?? [];
    if (loaded === null && event.addedColumns.length === 0 && schemaChanges.length === 0 && suspectedRenames.length === 0) return;
    // One read of the settings serves the cycle's log line and the schema-change alert.
    const stored = await this.replications.get(replicationId);
    if (!stored) return;
    if (loaded) {
      replicationLog(this.logger, stored.config).info(event.kind === 'seed' ? 'seed loaded' : 'change cycle loaded', { replicationId, table: tableName, ...loaded });
    }
    if (event.addedColumns.length > 0 && stored.config.alertOnSuccessfulTableSchemaChanges) {
      await this.alerts.raise({
        replicationId,
        kind: 'SchemaChange',
        message: `${tableName}: added column(s) ${event.addedColumns.join(', ')} in staging and warehouse`,
        tableName,
      });
    }
    if (schemaChanges.length > 0 && stored.config.alertOnSuccessfulTableSchemaChanges) {
      await this.alerts.raise({ replicationId, kind: 'SchemaChange', message: `${tableName}: ${schemaChanges.join('; ')}`, tableName });
    }
    // A suspected rename leaves a column stale without failing anything: said whatever the setting.
    if (suspectedRenames.length > 0) await this.alerts.raise({ replicationId, kind: 'SchemaChange', message: `${tableName}: ${suspectedRenames.join('; ')}`, tableName });
  }

  /**
   * A worker's heartbeat: the work in flight is alive (it keeps a serialized replication's slot; Describe
   * and /metrics show it as the table's last progress). Heartbeats of work no longer in flight, and
   * malformed ones, change nothing.
   */
  async workProgress(message: unknown, now = new Date()): Promise<void> {
    const progress = guardWorkProgress(message);
    if (!progress.ok) {
      this.logger.debug('malformed work progress ignored', { problems: progress.problems });
      return;
    }
    const { replicationId, workId, table } = progress.value;
    try {
      // A beat of an attempt a later one replaced does not count (reportingWork: with its epoch when it names one).
      await this.state.recordProgress(replicationId, tableKey(table), reportingWork(progress.value), now);
    } catch (error) {
      // Best effort: the next heartbeat comes in seconds.
      this.logger.warn('could not record work progress', { replicationId, workId, error });
    }
  }

  /**
   * A work request delivered again starts a new attempt with a new epoch (WorkAttemptRequest); null when the work is
   * no longer in flight. The extractor reads nothing then.
   */
  async workAttempt(message: unknown, now = new Date()): Promise<RpcReply<WorkAttemptReply>> {
    const guarded = guardWorkAttempt(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const { replicationId, workId, table } = guarded.value;
    const epoch = await this.state.newAttempt(replicationId, tableKey(table), workId, now);
    this.logger.info('work delivered again: a new attempt', { replicationId, table: tableKey(table), workId, epoch });
    return rpcOk({ epoch });
  }

  /**
   * A retryable failure waits out a capped, jittered backoff before the table is tried again; a terminal
   * one stops the table (Error) or, when it concerns the whole source, staging, warehouse or bucket
   * (authentication, a missing database or bucket), the replication (Failed). StartReplication retries both.
   */
  async workFailed(event: WorkFailed, now = new Date()): Promise<void> {
    const tableName = tableKey(event.table);
    const { replicationId } = event;
    if (!event.retryable && event.scope === 'replication' && (await this.configChangedSince(event, tableName))) {
      // Work that began before an Alter (say, a rotated password) may have used the old settings: try again with the new ones.
      event = { ...event, retryable: true, message: `${event.message} (with the settings before the last change; retried)` };
    }
    const replicationWide = !event.retryable && event.scope === 'replication';
    let retryAt: Date | null = null;
    if (event.retryable && !event.reseed) {
      const failures = (await this.state.failureCount(replicationId, tableName)) + 1;
      retryAt = new Date(now.getTime() + retryDelayMs(failures, TABLE_RETRY_BACKOFF));
    }
    const detail = event.detail;
    const failure = { message: event.message, ...(detail !== undefined && { detail }), event: failureEvent(event), retryAt };
    const moved = await this.state.failWork(replicationId, tableName, reportingWork(event), failure, now);
    if (!moved) return;
    if (event.fencedOut) {
      // The work it holds as current was refused by a newer fence: this control database is older than staging or the
      // warehouse. Its epochs move past every fence, and the table reseeds (below) from a snapshot taken now.
      await this.state.moveEpochPastFences(replicationId, tableName, now);
      this.logger.warn('control database older than staging or the warehouse: the table\'s epochs moved past their fences; reseeding', { replicationId, table: tableName });
    }
    // The log keeps what the server said (the logger redacts credentials): operators need it, Describe shows it only to keys allowed to see it.
    this.logger.warn('pipeline work failed', { replicationId, table: tableName, stage: event.stage, retryable: event.retryable, scope: event.scope ?? 'table', reason: event.message, detail });
    if (event.reseed) {
      await this.alerts.raise({ replicationId, kind: 'Reseed', message: `${tableName}: reseeding: ${event.message}`, tableName });
    } else if (replicationWide) {
      const reason = `${event.stage} of ${tableName} failed: ${event.message}`;
      // A replication being deleted or stopped meanwhile keeps that status.
      if ((await this.replications.get(replicationId))?.status === 'Running') await this.replications.setStatus(replicationId, 'Failed', reason, detail ?? null);
      await this.alerts.raise({ replicationId, kind: 'Failure', message: `replication failed: ${reason}` });
    } else if (!event.retryable) {
      await this.alerts.raise({ replicationId, kind: 'Failure', message: `${tableName}: ${event.message}`, tableName });
    }
  }

  /** Whether the replication's configuration changed after the failed work was issued. */
  private async configChangedSince(event: WorkFailed, tableName: string): Promise<boolean> {
    const [startedAt, stored] = await Promise.all([this.state.workStartedAt(event.replicationId, tableName, event.workId), this.replications.get(event.replicationId)]);
    if (startedAt === null || stored === null) return false;
    const issuedUnder = event.configVersion;
    return (issuedUnder !== undefined && stored.version > issuedUnder) || stored.updatedAt > startedAt;
  }
}

/** The work a report is about, with the epoch of the attempt that made it when the worker says it. */
function reportingWork(event: { workId: string; epoch?: number }): ReportingWork {
  return event.epoch === undefined ? event.workId : { workId: event.workId, epoch: event.epoch };
}

/** Columns added with a value for existing rows (default, identity, generated) leave earlier rows NULL downstream: reseed. */
function filledColumnsReseedReason(filled: string[]): string | null {
  if (filled.length === 0) return null;
  return (
    `column(s) ${filled.join(', ')} added in the source with a value for existing rows (a default, identity or generated column): ` +
    'the table is reseeded so that rows loaded before carry it'
  );
}

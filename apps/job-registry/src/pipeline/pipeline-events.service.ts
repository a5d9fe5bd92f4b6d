import { Inject, Injectable } from '@nestjs/common';
import type { BatchLoaded, WorkFailed } from '@svc/contracts';
import { tableKey } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { PipelineStateRepository, ReplicationRepository, type ReplicationStore } from '@svc/registry-store';
import { AlertsService } from './alerts.service';

/** Completions and failures reported by the pipeline move table state; the watermark moves only here. */
@Injectable()
export class PipelineEventsService {
  constructor(
    private readonly state: PipelineStateRepository,
    private readonly alerts: AlertsService,
    private readonly logger: JsonLogger,
    @Inject(ReplicationRepository) private readonly replications: ReplicationStore,
  ) {}

  async batchLoaded(event: BatchLoaded, now = new Date()): Promise<void> {
    const tableName = tableKey(event.table);
    const { replicationId, workId } = event;
    let moved: boolean;
    if (event.kind === 'seed' && !event.final) {
      moved = await this.state.recordSeedProgress(replicationId, tableName, workId, event.rowCount);
    } else if (event.kind === 'seed') {
      moved = await this.state.completeSeed(replicationId, tableName, workId, event.version, event.rowCount, now);
    } else {
      const lagSeconds = Math.max(0, (Date.parse(event.loadedAt) - Date.parse(event.extractedAt)) / 1000);
      moved = await this.state.completeChanges(replicationId, tableName, workId, event.version, event.rowCount, lagSeconds, now);
    }
    if (!moved) {
      this.logger.debug('completion of work no longer in flight ignored', { replicationId, table: tableName, workId });
      return;
    }
    if (event.addedColumns.length > 0 && (await this.replications.get(replicationId))?.config.alertOnSuccessfulTableSchemaChanges) {
      await this.alerts.raise({
        replicationId,
        kind: 'SchemaChange',
        message: `${tableName}: added column(s) ${event.addedColumns.join(', ')} in staging and warehouse`,
      });
    }
  }

  async workFailed(event: WorkFailed, now = new Date()): Promise<void> {
    const tableName = tableKey(event.table);
    const phase = event.reseed ? 'Reseeding' : event.retryable ? null : 'Error';
    const moved = await this.state.failWork(event.replicationId, tableName, event.workId, event.message, phase, now);
    if (!moved) return;
    this.logger.warn('pipeline work failed', { replicationId: event.replicationId, table: tableName, stage: event.stage, retryable: event.retryable, reason: event.message });
    if (event.reseed) {
      await this.alerts.raise({ replicationId: event.replicationId, kind: 'Reseed', message: `${tableName}: reseeding: ${event.message}` });
    } else if (!event.retryable) {
      await this.alerts.raise({ replicationId: event.replicationId, kind: 'Failure', message: `${tableName}: ${event.message}` });
    }
  }
}

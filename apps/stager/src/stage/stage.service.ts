import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { PipelineSubjects, type BatchExtracted, type ReplicationConfig } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger, replicationLog } from '@svc/logging';
import { PipelinePublisher, purgeRows, readRowChunks } from '@svc/messaging';
import { NATS_CONNECTION } from '@svc/messaging-nest';
import { WORKER_CONFIG } from '@svc/pipeline-nest';
import {
  EngineRegistry,
  HOUSEKEEPING_INTERVAL_MS,
  IntervalGate,
  RuntimeConfigClient,
  batchFolderName,
  batchLogCutoff,
  previousSeedPart,
  reportBatchFailure,
  waitForPreviousPart,
  workMessageId,
  type FailureReport,
} from '@svc/pipeline-runtime';
import { BatchFileWriter, batchKeyPrefix, deleteExpiredFiles, replicationPrefix, tapChunks } from '@svc/storage';

/**
 * Applies a batch to the staging database and, from the same pass over its rows, writes it to the bucket
 * as gzip CSV parts with a manifest; then hands it to the loaders. A stale batch (of a unit of work older
 * than one already applied to the table: cancelled work) is acknowledged and dropped, its files never written.
 */
@Injectable()
export class StageService {
  private readonly housekeeping = new IntervalGate(HOUSEKEEPING_INTERVAL_MS);

  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(WORKER_CONFIG) private readonly settings: WorkerConfig,
  ) {}

  async stage(event: BatchExtracted): Promise<void> {
    const { batch } = event;
    const config = await this.configs.configOf(batch.replicationId, batch.configVersion);
    const staging = this.engines.staging(config);
    const previous = previousSeedPart(batch);
    // A part of cancelled work may wait for a predecessor that was refused as stale: it is stale too by then.
    if (previous) await waitForPreviousPart(async () => (await staging.hasApplied(previous)) || (await staging.isStale(batch)), previous);
    // Decided before any file is written: a newer unit's batch of the same versions has the same id, so the same file keys.
    if (await staging.isStale(batch)) return this.dropStale(event, config);
    const { addedColumns } = await staging.ensureTable(batch.definition);

    const client = this.engines.bucket(config, this.settings.s3);
    const prefix = batchKeyPrefix(config.warehouse.bucketFolderName, batch.replicationId, batch.definition.table, batchFolderName(batch.batchId));
    const writer = new BatchFileWriter(client, config.warehouse.bucketName, prefix);
    let outcome;
    try {
      const rows = readRowChunks(this.connection, event.rowsSubject, event.chunkCount);
      outcome = await staging.applyBatch(batch, tapChunks(rows, writer));
    } catch (error) {
      await writer.abort().catch(() => undefined);
      throw error;
    }
    // Newer work applied in the meantime: applyBatch read none of the rows, so the writer wrote nothing. It is
    // not aborted either: abort deletes the batch's keys (its manifest), which the newer batch may own.
    if (outcome.stale) return this.dropStale(event, config);
    const files = await writer.finish();
    await this.publisher.publish(
      PipelineSubjects.batchStaged,
      { workId: event.workId, batch, files, rowCount: event.rowCount, addedColumns, extractedAt: event.extractedAt },
      workMessageId(event.workId, batch.batchId),
    );
    await purgeRows(this.connection, event.rowsSubject);
    if (!outcome.applied) replicationLog(this.logger, config).debug('batch was already in staging', { batchId: batch.batchId });
    if (this.housekeeping.due(batch.replicationId)) await this.keepHouse(batch.replicationId, config);
  }

  /**
   * Neither forwarded nor reported: the registry has released its work. Its rows stay in the rows stream
   * until they expire, since a newer batch of the same id reads the same rows subject.
   */
  private dropStale(event: BatchExtracted, config: ReplicationConfig): void {
    const { batch } = event;
    replicationLog(this.logger, config).debug('dropped a stale batch: newer work on its table has been applied', {
      workId: event.workId,
      batchId: batch.batchId,
      epoch: batch.epoch,
    });
  }

  /**
   * Deletes batch files older than Warehouse.RetentionDays and forgets batches staging applied more than
   * a week ago. A failure is logged, not thrown: the batch itself is done, and the next hour tries again.
   */
  private async keepHouse(replicationId: string, config: ReplicationConfig): Promise<void> {
    const log = replicationLog(this.logger, config);
    try {
      const { warehouse } = config;
      const client = this.engines.bucket(config, this.settings.s3);
      const deleted = await deleteExpiredFiles(client, warehouse.bucketName, replicationPrefix(warehouse.bucketFolderName, replicationId), warehouse.retentionDays);
      if (deleted > 0) log.info('deleted expired batch files', { replicationId, objects: deleted });
      const forgotten = await this.engines.staging(config).forgetAppliedBatches(batchLogCutoff());
      if (forgotten > 0) log.info('forgot batches applied in staging more than a week ago', { replicationId, batches: forgotten });
    } catch (error) {
      log.warn('housekeeping failed; retried in an hour', { replicationId, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  async fail(event: BatchExtracted, failure: FailureReport): Promise<void> {
    await reportBatchFailure(this.publisher, event, 'stage', failure);
  }
}

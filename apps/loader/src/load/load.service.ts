import { Inject, Injectable } from '@nestjs/common';
import { PipelineSubjects, type BatchStaged } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { WarehouseTableOptions } from '@svc/engines';
import { PipelinePublisher } from '@svc/messaging';
import { WORKER_CONFIG } from '@svc/pipeline-nest';
import { EngineRegistry, RuntimeConfigClient, previousSeedPart, reportBatchFailure, waitForPreviousPart, workMessageId } from '@svc/pipeline-runtime';
import { S3StagedFileReader } from '@svc/storage';

/** Loads a staged file set into the warehouse and merges it; then tells the registry, which moves the watermark. */
@Injectable()
export class LoadService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly publisher: PipelinePublisher,
    @Inject(WORKER_CONFIG) private readonly settings: WorkerConfig,
  ) {}

  async load(event: BatchStaged): Promise<void> {
    const { batch } = event;
    const config = await this.configs.configOf(batch.replicationId);
    const warehouse = this.engines.warehouse(config);
    const options: WarehouseTableOptions = {
      schema: config.warehouse.databaseSchema,
      scdType: config.warehouse.scdType,
      addUpdateTimestamp: config.addUpdateTimestamp,
    };
    const previous = previousSeedPart(batch);
    if (previous) await waitForPreviousPart(() => warehouse.hasLoaded(previous, options), previous);
    const { addedColumns } = await warehouse.ensureTable(batch.definition, options);
    const reader = new S3StagedFileReader(this.engines.bucket(config, this.settings.s3), event.files.bucket);
    const outcome = await warehouse.loadBatch(batch, event.files, reader, options);
    const body = batch.body;
    await this.publisher.publish(
      PipelineSubjects.batchLoaded,
      {
        workId: event.workId,
        batchId: batch.batchId,
        replicationId: batch.replicationId,
        table: batch.definition.table,
        kind: body.kind,
        ...(body.kind === 'seed' && { part: body.part, final: body.final }),
        version: body.kind === 'seed' ? body.startVersion : body.toVersion,
        rowCount: outcome.applied ? outcome.rowCount : event.rowCount,
        addedColumns: [...new Set([...event.addedColumns, ...addedColumns])],
        extractedAt: event.extractedAt,
        loadedAt: new Date().toISOString(),
      },
      workMessageId(event.workId, batch.batchId),
    );
  }

  async fail(event: BatchStaged, message: string, retryable: boolean): Promise<void> {
    await reportBatchFailure(this.publisher, event, 'load', message, retryable);
  }
}

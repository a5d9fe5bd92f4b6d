import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import {
  PipelineSubjects,
  hasPrimaryKey,
  tableKey,
  type BatchDescriptor,
  type ExtractRequested,
  type ReplicationConfig,
  type TableDefinition,
} from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { SourceConnector } from '@svc/engines';
import { JsonLogger } from '@svc/logging';
import { PipelinePublisher, publishRowChunks, rowsSubjectOf } from '@svc/messaging';
import { NATS_CONNECTION } from '@svc/messaging-nest';
import { WORKER_CONFIG } from '@svc/pipeline-nest';
import { ChangesPurgedError, EngineRegistry, RuntimeConfigClient, changeBatchId, seedBatchId, splitCsvParts, workMessageId } from '@svc/pipeline-runtime';

/** How often one table's expired change records are purged. */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

interface PendingPart {
  batch: BatchDescriptor;
  rowsSubject: string;
  chunkCount: number;
  rowCount: number;
}

/**
 * Reads the source: a seed (one consistent snapshot, cut into parts) or the net changes since the
 * table's watermark, and hands the rows to the stagers as JetStream chunks.
 */
@Injectable()
export class ExtractService {
  private readonly lastPurge = new Map<string, number>();

  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(WORKER_CONFIG) private readonly settings: WorkerConfig,
  ) {}

  async extract(request: ExtractRequested): Promise<void> {
    const config = await this.configs.configOf(request.replicationId);
    const source = this.engines.source(config);
    const definition = await source.describeTable(request.table);
    if (!definition) {
      await this.fail(request, `${tableKey(request.table)} no longer exists in the source`, { retryable: false });
      return;
    }
    if (request.kind === 'seed') await this.seed(request, source, definition);
    else await this.changes(request, config, source, definition);
  }

  private async seed(request: ExtractRequested, source: SourceConnector, definition: TableDefinition): Promise<void> {
    if (request.track && hasPrimaryKey(definition)) await source.enableTracking(definition);
    const extractedAt = new Date().toISOString();
    const snapshot = await source.readSnapshot(definition);
    const seedId = randomUUID();
    let pending: PendingPart | null = null;
    // A part is announced once the next one has started (or the snapshot ended), so the last part knows it is final.
    for await (const part of splitCsvParts(snapshot.rows, this.settings.seedPartBytes)) {
      if (pending) await this.announce(request, pending, extractedAt, false);
      const batchId = seedBatchId(request.replicationId, definition.table, seedId, part.index);
      const rowsSubject = rowsSubjectOf(batchId);
      const { chunkCount } = await publishRowChunks(this.connection, rowsSubject, part.chunks, { maxChunkBytes: this.settings.rowChunkBytes });
      pending = {
        batch: {
          batchId,
          replicationId: request.replicationId,
          definition,
          body: { kind: 'seed', seedId, part: part.index, final: false, startVersion: snapshot.startVersion },
        },
        rowsSubject,
        chunkCount,
        rowCount: part.rowCount(),
      };
    }
    await snapshot.finished;
    if (pending) await this.announce(request, pending, extractedAt, true);
  }

  private async changes(request: ExtractRequested, config: ReplicationConfig, source: SourceConnector, definition: TableDefinition): Promise<void> {
    const fromVersion = request.fromVersion ?? '0';
    const minValid = await source.minValidVersion(definition.table);
    if (minValid !== null && BigInt(fromVersion) < BigInt(minValid)) {
      await this.fail(request, `watermark ${fromVersion} is below the minimum valid version ${minValid}: changes were purged, so the table is reseeded`, {
        retryable: true,
        reseed: true,
      });
      return;
    }
    const extractedAt = new Date().toISOString();
    let read;
    try {
      read = await source.readChanges(definition, fromVersion, request.batchLimit);
    } catch (error) {
      // A purge between the check above and the read: the same verdict.
      if (!(error instanceof ChangesPurgedError)) throw error;
      await this.fail(request, `watermark ${fromVersion} is below the minimum valid version ${error.minValidVersion}: changes were purged, so the table is reseeded`, {
        retryable: true,
        reseed: true,
      });
      return;
    }
    const batchId = changeBatchId(request.replicationId, definition.table, fromVersion, read.toVersion);
    const rowsSubject = rowsSubjectOf(batchId);
    const { chunkCount } = await publishRowChunks(this.connection, rowsSubject, read.rows, { maxChunkBytes: this.settings.rowChunkBytes });
    const { rowCount } = await read.finished;
    const batch: BatchDescriptor = {
      batchId,
      replicationId: request.replicationId,
      definition,
      body: { kind: 'changes', fromVersion, toVersion: read.toVersion },
    };
    if (rowCount === 0) {
      // Nothing changed: the watermark may move without staging or warehouse work.
      await this.publisher.publish(
        PipelineSubjects.batchLoaded,
        {
          workId: request.workId,
          batchId,
          replicationId: request.replicationId,
          table: definition.table,
          kind: 'changes',
          version: read.toVersion,
          rowCount: 0,
          addedColumns: [],
          extractedAt,
          loadedAt: new Date().toISOString(),
        },
        workMessageId(request.workId, batchId),
      );
    } else {
      await this.publisher.publish(PipelineSubjects.batchExtracted, { workId: request.workId, batch, rowsSubject, chunkCount, rowCount, extractedAt }, workMessageId(request.workId, batchId));
    }
    await this.purgeWhenDue(source, config, definition);
  }

  private async announce(request: ExtractRequested, part: PendingPart, extractedAt: string, final: boolean): Promise<void> {
    const body = part.batch.body;
    const batch: BatchDescriptor = body.kind === 'seed' ? { ...part.batch, body: { ...body, final } } : part.batch;
    await this.publisher.publish(
      PipelineSubjects.batchExtracted,
      { workId: request.workId, batch, rowsSubject: part.rowsSubject, chunkCount: part.chunkCount, rowCount: part.rowCount, extractedAt },
      workMessageId(request.workId, batch.batchId),
    );
  }

  private async purgeWhenDue(source: SourceConnector, config: ReplicationConfig, definition: TableDefinition): Promise<void> {
    const sourceIdentity = createHash('sha256').update(config.source.connectionString).digest('hex').slice(0, 16);
    const key = `${sourceIdentity}:${tableKey(definition.table)}`;
    const last = this.lastPurge.get(key) ?? 0;
    if (Date.now() - last < PURGE_INTERVAL_MS) return;
    this.lastPurge.set(key, Date.now());
    const { purgedRows } = await source.purgeChanges(definition.table, config.source.changeTrackingRetentionPeriod);
    if (purgedRows > 0) this.logger.info('purged expired change records', { table: tableKey(definition.table), purgedRows });
  }

  /** Reports a failure the registry acts on (retry later, reseed, or stop the table). */
  async fail(request: ExtractRequested, message: string, options: { retryable: boolean; reseed?: boolean }): Promise<void> {
    await this.publisher.publish(
      PipelineSubjects.workFailed,
      {
        workId: request.workId,
        replicationId: request.replicationId,
        table: request.table,
        stage: 'extract',
        retryable: options.retryable,
        message,
        ...(options.reseed && { reseed: true }),
        failedAt: new Date().toISOString(),
      },
      `${request.workId}/failed`,
    );
  }
}

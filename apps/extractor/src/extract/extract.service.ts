import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import {
  PipelineSubjects,
  Subjects,
  hasPrimaryKey,
  tableKey,
  type BatchDescriptor,
  type BatchExtracted,
  type ChangeBatch,
  type ExtractGroupRequested,
  type ExtractRequested,
  type ReplicationConfig,
  type SeedChunk,
  type SeedClose,
  type SeedPlanRequest,
  type TableDefinition,
} from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import { abandonRowStream, type ChangeRead, type ReadOptions, type SourceConnector } from '@svc/engines';
import { JsonLogger, replicationLog } from '@svc/logging';
import {
  CancelledWork,
  DEFAULT_OUTAGE_WAIT,
  NatsRequester,
  PipelinePublisher,
  WorkAbortedError,
  publishRowChunks,
  purgeRows,
  rowsSubjectOf,
  type OutageWait,
  type WorkContext,
} from '@svc/messaging';
import { NATS_CONNECTION } from '@svc/messaging-nest';
import { WORKER_CONFIG, WORKER_SHUTDOWN } from '@svc/pipeline-nest';
import {
  ChangesPurgedError,
  EngineRegistry,
  TableNotTrackedError,
  IntervalGate,
  RuntimeConfigClient,
  StaleDefinitionError,
  isEngineError,
  changeBatchId,
  groupMessageId,
  groupsOf,
  seedBatchId,
  splitCsvParts,
  workMessageId,
  DEFAULT_REGISTRY_WAIT,
  waitForRegistry,
  type FailureScope,
  type RegistryWait,
} from '@svc/pipeline-runtime';
import { projectOntoColumns } from './schema-projection';
import { SentDefinitions } from './sent-definitions';

/** Reads of one unit of work that may each find the table altered since it was described. */
const STALE_DEFINITION_ATTEMPTS = 3;

/**
 * Change batches one unit of work reads of a backlog over ChangeTrackingBatchLimit before the registry plans
 * again (8 × the default 500,000 records): enough to keep reads and applies overlapping, few enough that
 * Alter's settings (a new limit, a removed table) reach the table soon. Each batch loaded restarts the
 * CtProcessTimeoutInMinutes clock, as a cycle of its own would.
 */
export const CHANGE_BATCHES_PER_WORK = 8;

/** A new attempt's epoch waits out a registry that does not answer (restarting) in place: pauses of 0.5–1 s, then 1–2 s. */
const REGISTRY_WAIT_BACKOFF = { initialMs: 1000, maxMs: 2000 };

/**
 * A member's change batch over this many bytes of rows goes on alone, not with its group: a group is applied in one
 * transaction and its members' files are finished together, so one large member would hold up, and be held in memory
 * with, the small ones. (The registry groups tables whose last cycle was small; this catches one that grew.)
 */
export const GROUP_MEMBER_MAX_BYTES = 1024 * 1024;

/** How often one table's expired change records are purged. */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Where a member of a group hands its one small change batch instead of announcing it alone: the group's batches go on
 * to staging together. A member whose backlog takes several batches announces them alone, as any work does.
 */
type GroupForward = (extracted: BatchExtracted) => void;

interface PendingPart {
  batch: BatchDescriptor;
  rowsSubject: string;
  chunkCount: number;
  rowCount: number;
  /** The rows' bytes, when known: a change batch over GROUP_MEMBER_MAX_BYTES goes alone, not with its group. */
  byteCount?: number;
}

/**
 * Reads the source: a seed (one consistent snapshot, cut into parts) or the net changes since the
 * table's watermark, and hands the rows to the stagers as JetStream chunks.
 */
@Injectable()
export class ExtractService {
  private readonly purges = new IntervalGate(PURGE_INTERVAL_MS);
  private readonly sentDefinitions = new SentDefinitions();
  /** Row chunks wait out a NATS outage in place, until the worker shuts down. */
  private readonly outageWait: Partial<OutageWait>;
  /** A new attempt's epoch waits for the registry in place, up to 2 minutes, until the worker shuts down. */
  private readonly registryWait: RegistryWait;

  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    private readonly cancelled: CancelledWork,
    private readonly requester: NatsRequester,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(WORKER_CONFIG) private readonly settings: WorkerConfig,
    @Inject(WORKER_SHUTDOWN) shutdown: AbortController,
  ) {
    this.outageWait = { shutdown: shutdown.signal };
    this.registryWait = { ...DEFAULT_REGISTRY_WAIT, maxWaitMs: DEFAULT_OUTAGE_WAIT.maxWaitMs, backoff: REGISTRY_WAIT_BACKOFF, shutdown: shutdown.signal };
  }

  async extract(delivered: ExtractRequested, context: Pick<WorkContext, 'deliveryCount'> = { deliveryCount: 1 }): Promise<void> {
    const request = await this.attemptOf(delivered, context.deliveryCount);
    if (request === null) return;
    await this.extractAttempt(request);
  }

  /**
   * The change cycles of a group of small tables (docs/PIPELINE.md, "Many small tables in one unit"): each member read as
   * it would be alone, one after the other; the members whose changes fit one batch go on to staging in one message.
   * Returned: the members that failed, each under a new attempt, to be read alone (extractAlone, through runWorkOrGroup),
   * where the failure is retried and reported as any work's: one table's failure never holds back or fails the others.
   */
  async extractGroup(message: ExtractGroupRequested, context: Pick<WorkContext, 'deliveryCount'> = { deliveryCount: 1 }): Promise<ExtractRequested[]> {
    const forwarded: BatchExtracted[] = [];
    const failed: ExtractRequested[] = [];
    for (const delivered of message.group) {
      if (this.cancelled.has(delivered.workId)) continue;
      /** Kept apart until the member is done: a member that fails after its read goes alone, and its batch with it. */
      const own: BatchExtracted[] = [];
      try {
        const request = await this.attemptOf(delivered, context.deliveryCount);
        if (request === null) continue;
        await this.extractAttempt(request, (extracted) => own.push(extracted));
        forwarded.push(...own);
      } catch (error) {
        if (error instanceof WorkAbortedError) throw error;
        this.logger.info('a table of a group is read again alone after a failure', {
          workId: delivered.workId,
          table: tableKey(delivered.table),
          reason: error instanceof Error ? error.message : String(error),
        });
        failed.push(delivered);
      }
    }
    for (const group of groupsOf(forwarded)) {
      const [only] = group;
      if (group.length === 1 && only !== undefined) await this.publisher.publish(PipelineSubjects.batchExtracted, only, workMessageId(only.workId, only.batch.batchId, only.batch.epoch));
      else await this.publisher.publish(PipelineSubjects.batchExtracted, { workId: message.workId, group }, groupMessageId('extracted', group));
    }
    // Each under a new attempt (its read may have announced batches under the group's epoch, which a new one fences out),
    // whose epoch its reports then carry; one the registry no longer holds is dropped.
    const attempts = await Promise.all(failed.map((member) => this.newAttempt(member)));
    return attempts.filter((attempt): attempt is ExtractRequested => attempt !== null);
  }

  /** A failed member of a group, under its new attempt (extractGroup), read again as one table's work. */
  async extractAlone(attempt: ExtractRequested): Promise<void> {
    await this.extractAttempt(attempt);
  }

  /** One attempt of a work, its definition read again when the table changed while it was read. */
  private async extractAttempt(request: ExtractRequested, forward?: GroupForward): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.extractOnce(request, forward);
        return;
      } catch (error) {
        // The table changed (ALTER TABLE) between describing it and reading it: describe it again.
        if (!(error instanceof StaleDefinitionError) || attempt >= STALE_DEFINITION_ATTEMPTS) throw error;
        this.logger.debug('table definition changed during the read: reading again', { workId: request.workId, table: tableKey(request.table) });
      }
    }
  }

  /**
   * The work as this attempt reads it. A request delivered again (its ack deadline passed while another attempt may
   * still be reading, a worker died, a retry) gets a new epoch from the registry (WorkAttemptRequest): two attempts
   * read different windows at different times, and the fences let only the latest one's batches and reports count.
   * Null when the work is no longer in flight: nothing is read.
   *
   * A registry that does not answer (restarting) is waited for in place (see waitForRegistry) rather than sending the message
   * into redelivery backoff, where an outage of a few backoffs would use up its deliveries; a refusal still fails at once.
   * Asking again after a lost reply is safe: the registry gives each request a newer epoch, and only the latest counts.
   */
  private async attemptOf(request: ExtractRequested, deliveryCount: number): Promise<ExtractRequested | null> {
    // A chunk read again keeps its seed's epoch: a new one would fence out every other chunk of the seed in flight. Its
    // batch applies at most once (its id is the chunk's), and any snapshot after the horizon serves (the close mends it).
    if (deliveryCount <= 1 || request.chunk !== undefined) return request;
    const attempt = await this.newAttempt(request);
    if (attempt === null) this.logger.info('work delivered again is no longer in flight: dropped', { workId: request.workId, table: tableKey(request.table), deliveryCount });
    return attempt;
  }

  /** The work under a new epoch from the registry (WorkAttemptRequest); null when the registry no longer holds it. */
  private async newAttempt(request: ExtractRequested): Promise<ExtractRequested | null> {
    const body = { workId: request.workId, replicationId: request.replicationId, table: request.table };
    const reply = await waitForRegistry(() => this.requester.request(Subjects.registryWorkAttempt, body), this.registryWait);
    if (!reply.ok) throw new Error(`the registry refused a new attempt of work ${request.workId}: ${reply.error.messages.join('; ')}`);
    return reply.value.epoch === null ? null : { ...request, epoch: reply.value.epoch };
  }

  private async extractOnce(request: ExtractRequested, forward?: GroupForward): Promise<void> {
    const config = await this.configs.configOf(request.replicationId, request.configVersion);
    const source = this.engines.source(config);
    const definition = await source.describeTable(request.table);
    if (!definition) {
      await this.fail(request, `${tableKey(request.table)} no longer exists in the source`, { retryable: false, scope: 'table' });
      return;
    }
    // SchemaReplication off: read only the columns staging already has, so source schema changes stay out.
    const stagedColumns = config.schemaReplication === false ? await this.engines.staging(config).existingColumns(definition.table) : null;
    const replicated = stagedColumns ? projectOntoColumns(definition, stagedColumns) : definition;
    if (stagedColumns && replicated.columns.length === 0) {
      await this.fail(request, `${tableKey(request.table)}: no column of its staging table is left in the source`, { retryable: false, scope: 'table' });
      return;
    }
    const readOptions: ReadOptions = { columnsProjected: stagedColumns !== null };
    if (request.kind === 'seed' && request.seedClose !== undefined) await this.closeSeed(request, request.seedClose, config, source, replicated, readOptions);
    else if (request.kind === 'seed' && request.chunk !== undefined) await this.seedChunk(request, request.chunk, source, replicated, readOptions);
    else if (request.kind === 'seed') await this.seed(request, source, replicated, readOptions);
    else await this.changes(request, config, source, replicated, { ...readOptions, ...(request.fromIncarnation !== undefined && { incarnation: request.fromIncarnation }) }, undefined, forward);
  }

  private async seed(request: ExtractRequested, source: SourceConnector, definition: TableDefinition, readOptions: ReadOptions): Promise<void> {
    // Work cancelled before it started (its table left the replication, whose source is being released) tracks nothing.
    if (await this.stoppedAsCancelled(request, null)) return;
    if (request.track && hasPrimaryKey(definition)) await source.enableTracking(definition);
    if (await this.seedInChunks(request, source, definition)) return;
    const extractedAt = new Date().toISOString();
    const snapshot = await source.readSnapshot(definition, readOptions);
    const seedId = randomUUID();
    let pending: PendingPart | null = null;
    // A part is announced once the next one has started (or the snapshot ended), so the last part knows it is final.
    for await (const part of splitCsvParts(snapshot.rows, this.settings.seedPartBytes)) {
      // Leaving the loop closes the snapshot: the source ends its read transaction by itself, so `finished` is not awaited then.
      if (await this.stoppedAsCancelled(request, pending)) return;
      if (pending) await this.announce(request, pending, extractedAt, false);
      const batchId = seedBatchId(request.replicationId, definition.table, seedId, part.index);
      const rowsSubject = publicationSubject(batchId, request.workId);
      const { chunkCount } = await publishRowChunks(this.connection, rowsSubject, part.chunks, { maxChunkBytes: this.settings.rowChunkBytes, outageWait: this.outageWait });
      pending = {
        batch: batchOf(request, batchId, definition, {
          kind: 'seed',
          seedId,
          part: part.index,
          final: false,
          startVersion: snapshot.startVersion,
          ...incarnationField(snapshot.sourceIncarnation),
        }),
        rowsSubject,
        chunkCount,
        rowCount: part.rowCount(),
      };
    }
    await snapshot.finished;
    if (await this.stoppedAsCancelled(request, pending)) return;
    if (pending) await this.announce(request, pending, extractedAt, true);
  }

  /**
   * A keyed, tracked table over SEED_CHUNK_KB on an engine that can cut it is seeded in key-range chunks: the registry
   * keeps the plan (this one, or one kept from an earlier attempt of the seed, when only the chunks not loaded are read
   * again) and publishes each chunk as work any extractor takes. False when the table is seeded as one snapshot.
   */
  private async seedInChunks(request: ExtractRequested, source: SourceConnector, definition: TableDefinition): Promise<boolean> {
    if (!request.track || !hasPrimaryKey(definition) || source.planSeedChunks === undefined || this.settings.seedChunkBytes <= 0) return false;
    const ask = async (proposal: SeedPlanRequest['proposal']) => {
      const body: SeedPlanRequest = {
        workId: request.workId,
        epoch: request.epoch,
        replicationId: request.replicationId,
        table: request.table,
        keyColumns: definition.primaryKey,
        proposal,
      };
      const reply = await waitForRegistry(() => this.requester.request(Subjects.registrySeedPlan, body), this.registryWait);
      if (!reply.ok) throw new Error(`the registry refused the seed plan of ${tableKey(request.table)}: ${reply.error.messages.join('; ')}`);
      return reply.value;
    };
    // Planned here first (a catalog read and a sample): a table under SEED_CHUNK_KB never asks the registry. A plan the
    // registry kept from an earlier attempt of this seed wins over this one, and only its chunks not loaded are read.
    const plan = await source.planSeedChunks(definition, this.settings.seedChunkBytes);
    if (plan.bounds.length === 0) return false;
    const offered = await ask({ seedId: randomUUID(), startVersion: plan.startVersion, ...incarnationField(plan.sourceIncarnation), bounds: plan.bounds });
    if (offered.status === 'gone') return true;
    if (offered.status === 'needed') throw new Error(`the registry kept no seed plan of ${tableKey(request.table)}`);
    this.logger.info('seed cut into chunks', { workId: request.workId, table: tableKey(request.table), chunks: offered.count, published: offered.published });
    return true;
  }

  /**
   * One chunk of a chunked seed: its key range in a snapshot of its own, as one batch (a chunk applies whole or not at
   * all, so one read again after a crash never mixes with a part of an earlier read).
   */
  private async seedChunk(request: ExtractRequested, chunk: SeedChunk, source: SourceConnector, definition: TableDefinition, readOptions: ReadOptions): Promise<void> {
    const extractedAt = new Date().toISOString();
    const snapshot = await source.readSnapshot(definition, { ...readOptions, keyRange: { lower: chunk.lower, upper: chunk.upper } });
    const batchId = seedBatchId(request.replicationId, definition.table, chunk.seedId, chunk.index);
    const rowsSubject = publicationSubject(batchId, request.workId);
    const { chunkCount } = await publishRowChunks(this.connection, rowsSubject, snapshot.rows, { maxChunkBytes: this.settings.rowChunkBytes, outageWait: this.outageWait });
    const { rowCount } = await snapshot.finished;
    const pending: PendingPart = {
      batch: batchOf(request, batchId, definition, {
        kind: 'seed',
        seedId: chunk.seedId,
        part: chunk.index,
        final: false,
        chunked: true,
        startVersion: chunk.startVersion,
        ...incarnationField(chunk.sourceIncarnation ?? null),
      }),
      rowsSubject,
      chunkCount,
      rowCount,
    };
    if (await this.stoppedAsCancelled(request, pending)) return;
    await this.announce(request, pending, extractedAt, false);
  }

  /**
   * The close of a chunked seed: the changes from its capture horizon, read as a change work is (batches of the
   * backlog in order, a transaction never split) but to its end, applied over the chunks in staging and in the
   * warehouse's shadow; the last batch makes the shadow the table's. A horizon purged meanwhile reseeds.
   */
  private async closeSeed(
    request: ExtractRequested,
    close: SeedClose,
    config: ReplicationConfig,
    source: SourceConnector,
    definition: TableDefinition,
    readOptions: ReadOptions,
  ): Promise<void> {
    const changeRequest: ExtractRequested = {
      ...request,
      fromVersion: close.fromVersion,
      ...(close.fromIncarnation !== undefined && { fromIncarnation: close.fromIncarnation }),
    };
    const options = close.fromIncarnation === undefined ? readOptions : { ...readOptions, incarnation: close.fromIncarnation };
    await this.changes(changeRequest, config, source, definition, options, { seedId: close.seedId, chunkCount: close.chunkCount });
  }

  /**
   * Work cancelled by the registry (it ran past its timeout) stops between a seed's parts or a backlog's change
   * batches: the batch read last is not announced and its rows go. Batches announced before are dropped
   * downstream (their work id is cancelled) or, should a worker have missed the broadcast, refused by the epoch
   * fence once newer work applies.
   */
  private async stoppedAsCancelled(request: ExtractRequested, pending: PendingPart | null): Promise<boolean> {
    if (!this.cancelled.has(request.workId)) return false;
    this.logger.info(`${request.kind === 'seed' ? 'seed' : 'change read'} stopped: its work was cancelled`, { workId: request.workId, table: tableKey(request.table) });
    if (pending) await purgeRows(this.connection, pending.rowsSubject, this.outageWait);
    return true;
  }

  /**
   * Net changes since the watermark. A backlog over ChangeTrackingBatchLimit is read as up to
   * CHANGE_BATCHES_PER_WORK batches, each announced once the read of the next has begun, so that staging and
   * the warehouse apply one while the next is read; each batch names the one it follows (`after`), and the
   * last says it is final. A transaction is never split: each read ends at a transaction boundary.
   */
  private async changes(
    request: ExtractRequested,
    config: ReplicationConfig,
    source: SourceConnector,
    definition: TableDefinition,
    readOptions: ReadOptions,
    closesSeed?: ChangeBatch['closesSeed'],
    forward?: GroupForward,
  ): Promise<void> {
    let fromVersion = request.fromVersion ?? '0';
    /** When the read of the current batch began: its rows' lag is counted from here. */
    let extractedAt = new Date().toISOString();
    let read: ChangeRead;
    try {
      read = await source.readChanges(definition, fromVersion, request.batchLimit, readOptions);
    } catch (error) {
      const reason = reseedReason(error, fromVersion);
      if (reason === null) throw error;
      await this.fail(request, reason, { retryable: true, reseed: true, scope: 'table' });
      return;
    }
    let after: string | undefined;
    /** A read whose rows were not read to the end yet: its connection is given back if the work ends before. */
    let unread: ChangeRead | null = read;
    try {
      for (let batches = 1; ; batches += 1) {
        const batchId = changeBatchId(request.replicationId, definition.table, fromVersion, read.toVersion);
        const rowsSubject = publicationSubject(batchId, request.workId);
        const { chunkCount, byteCount } = await publishRowChunks(this.connection, rowsSubject, read.rows, { maxChunkBytes: this.settings.rowChunkBytes, outageWait: this.outageWait });
        const { rowCount } = await read.finished;
        unread = null;
        const body: ChangeBatch = {
          kind: 'changes',
          fromVersion,
          toVersion: read.toVersion,
          ...(after !== undefined && { after }),
          ...incarnationField(read.sourceIncarnation),
          ...(closesSeed !== undefined && { closesSeed }),
        };
        const part: PendingPart = { batch: batchOf(request, batchId, definition, body), rowsSubject, chunkCount, rowCount, byteCount };
        if (await this.stoppedAsCancelled(request, part)) return;
        const nextExtractedAt = new Date().toISOString();
        // The next batch of the backlog continues from this one's watermark, read in this one's incarnation.
        const followingOptions = read.sourceIncarnation === null ? readOptions : { ...readOptions, incarnation: read.sourceIncarnation };
        // A seed's close reads its backlog to the end: the table is the seed's only once all of it is applied.
        const next = read.limited && (closesSeed !== undefined || batches < CHANGE_BATCHES_PER_WORK) ? await this.readFollowingChanges(request, source, definition, read.toVersion, followingOptions) : null;
        if (next === null) {
          await this.announceLastChanges(request, part, body, extractedAt, forward);
          break;
        }
        unread = next;
        await this.announce(request, part, extractedAt, false);
        after = fromVersion;
        fromVersion = read.toVersion;
        read = next;
        extractedAt = nextExtractedAt;
      }
    } finally {
      if (unread !== null) abandonRowStream(unread);
    }
    await this.purgeWhenDue(source, config, definition);
  }

  /**
   * The read of a work's next change batch. A failure ends the work with the batch before it (null): the next
   * cycle reads from there and reports the failure (or reseeds) as a first read would.
   */
  private async readFollowingChanges(
    request: ExtractRequested,
    source: SourceConnector,
    definition: TableDefinition,
    fromVersion: string,
    readOptions: ReadOptions,
  ): Promise<ChangeRead | null> {
    try {
      return await source.readChanges(definition, fromVersion, request.batchLimit, readOptions);
    } catch (error) {
      this.logger.info('the next change batch of a backlog could not be read: the cycle ends before it', {
        workId: request.workId,
        table: tableKey(request.table),
        fromVersion,
        reason: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  }

  /** The work's last change batch; when it is its only one and empty, with nothing new to tell downstream, the watermark moves at once. */
  private async announceLastChanges(request: ExtractRequested, part: PendingPart, body: ChangeBatch, extractedAt: string, forward?: GroupForward): Promise<void> {
    const { batch } = part;
    const only = body.after === undefined && body.closesSeed === undefined;
    if (!only || part.rowCount > 0 || !this.sentDefinitions.isDelivered(request.replicationId, batch.definition, body.fromVersion)) {
      await this.announce(request, part, extractedAt, true, only ? forward : undefined);
      return;
    }
    // Nothing changed, schema included: the watermark may move without staging or warehouse work.
    await this.publisher.publish(
      PipelineSubjects.batchLoaded,
      {
        workId: request.workId,
        batchId: batch.batchId,
        replicationId: request.replicationId,
        table: batch.definition.table,
        kind: 'changes',
        fromVersion: body.fromVersion,
        version: body.toVersion,
        ...(body.sourceIncarnation !== undefined && { sourceIncarnation: body.sourceIncarnation }),
        epoch: request.epoch,
        rowCount: 0,
        addedColumns: [],
        extractedAt,
        loadedAt: new Date().toISOString(),
      },
      workMessageId(request.workId, batch.batchId, request.epoch),
    );
  }

  /** `forward`: the batch, a work's only one, goes on with its group's (see GroupForward) rather than alone. */
  private async announce(request: ExtractRequested, part: PendingPart, extractedAt: string, final: boolean, forward?: GroupForward): Promise<void> {
    const body = part.batch.body;
    // A change batch says only when more of its work follow: a work's single batch looks as it always did.
    const batch: BatchDescriptor =
      body.kind === 'seed' ? { ...part.batch, body: { ...body, final } } : final ? part.batch : { ...part.batch, body: { ...body, final: false } };
    const extracted: BatchExtracted = { workId: request.workId, batch, rowsSubject: part.rowsSubject, chunkCount: part.chunkCount, rowCount: part.rowCount, extractedAt };
    if (forward !== undefined && final && body.kind === 'changes' && (part.byteCount ?? 0) <= GROUP_MEMBER_MAX_BYTES) forward(extracted);
    else await this.publisher.publish(PipelineSubjects.batchExtracted, extracted, workMessageId(request.workId, batch.batchId, request.epoch));
    // A seed leaves the watermark at its start version.
    this.sentDefinitions.remember(request.replicationId, batch.definition, body.kind === 'seed' ? body.startVersion : body.toVersion);
  }

  private async purgeWhenDue(source: SourceConnector, config: ReplicationConfig, definition: TableDefinition): Promise<void> {
    const sourceIdentity = createHash('sha256').update(config.source.connectionString).digest('hex').slice(0, 16);
    const key = `${sourceIdentity}:${tableKey(definition.table)}`;
    if (!this.purges.due(key)) return;
    const { purgedRows, retention } = await source.purgeChanges(definition.table, config.source.changeTrackingRetentionPeriod);
    if (purgedRows > 0) replicationLog(this.logger, config).info('purged expired change records', { table: tableKey(definition.table), purgedRows });
    if (retention !== undefined) replicationLog(this.logger, config).info('change tracking retention', { table: tableKey(definition.table), retention });
  }

  /** Reports a failure the registry acts on (retry later, reseed, or stop the table or the whole replication). */
  async fail(request: ExtractRequested, message: string, options: { retryable: boolean; reseed?: boolean; scope: FailureScope; detail?: string }): Promise<void> {
    await this.publisher.publish(
      PipelineSubjects.workFailed,
      {
        workId: request.workId,
        replicationId: request.replicationId,
        table: request.table,
        stage: 'extract',
        retryable: options.retryable,
        message,
        ...(options.detail !== undefined && { detail: options.detail }),
        ...(options.reseed && { reseed: true }),
        scope: options.scope,
        ...(request.configVersion !== undefined && { configVersion: request.configVersion }),
        epoch: request.epoch,
        failedAt: new Date().toISOString(),
      },
      `${request.workId}/failed`,
    );
  }
}

/**
 * The rows subject of one publication of a batch: its own, never shared. Two attempts of one work can run at once (a
 * delivery whose ack deadline passed while the first still reads, after a NATS restart) and read the same window, so
 * the same batch id: under one subject their purges and chunks interleaved, and the subject held the chunks of both,
 * which no read of either batch could take (the MariaDB kill test froze on "holds more than the 1 chunks expected").
 * A publication cut short by a crash is never announced; its chunks expire with the rows stream's age limit.
 */
function publicationSubject(batchId: string, workId: string): string {
  return rowsSubjectOf(batchId, `${workId}/${randomUUID()}`);
}

/** A batch read for `request`: its work's epoch and configuration version go with it to staging and the warehouse. */
function batchOf(request: ExtractRequested, batchId: string, definition: TableDefinition, body: BatchDescriptor['body']): BatchDescriptor {
  return {
    batchId,
    replicationId: request.replicationId,
    epoch: request.epoch,
    ...(request.configVersion !== undefined && { configVersion: request.configVersion }),
    definition,
    body,
  };
}

/** The batch's record of the incarnation its rows were read in: absent when the source could not say. */
function incarnationField(incarnation: string | null): { sourceIncarnation?: string } {
  return incarnation === null ? {} : { sourceIncarnation: incarnation };
}

/**
 * Why a failed change read means the table must be seeded again, or null. The read checks the watermark
 * against the minimum valid version, and that capture is in place, inside its own snapshot; a source
 * database recreated (or the table, or schema svc_ct) lost the triggers and the change history, and the
 * seed enables tracking again.
 */
function reseedReason(error: unknown, fromVersion: string): string | null {
  if (error instanceof ChangesPurgedError) {
    return `watermark ${fromVersion} is below the minimum valid version ${error.minValidVersion}: changes were purged, so the table is reseeded`;
  }
  // Any other engine's error of the kind (a rewound or other incarnation, failed capture, MySQL's TRUNCATE in the log) says why in its own words.
  if (isEngineError(error, 'changes-purged')) return error.message;
  if (error instanceof TableNotTrackedError) return `${error.message}: the table is reseeded, which enables tracking again`;
  return null;
}

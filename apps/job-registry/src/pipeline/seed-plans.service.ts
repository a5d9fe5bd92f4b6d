import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import {
  ErrorCode,
  PipelineSubjects,
  guardExtractRequested,
  guardSeedPlan,
  rpcError,
  rpcOk,
  tableKey,
  type ExtractRequested,
  type RpcReply,
  type SeedChunk,
  type SeedPlanReply,
  type SeedPlanRequest,
} from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { PipelinePublisher, type OutageWait } from '@svc/messaging';
import { NATS_CONNECTION } from '@svc/messaging-nest';
import { PipelineStateRepository, SeedPlanRepository, type SeedPlan } from '@svc/registry-store';
import { SchedulerWake } from './scheduler-wake';

/**
 * Chunked seeds (docs/PIPELINE.md, "Chunked seeds"): the plan an extractor makes (or finds kept) for a seed's work, whose
 * chunks the registry publishes as work of their own under the seed's work id and epoch; and each chunk's load, which
 * the registry records, releasing the work once all are in so that the scheduler gives the table its close.
 */
/**
 * A plan's chunks are published within the extractor's request, which it asks again while the registry does not answer
 * (its registry wait): a NATS blip (a node of the cluster lost, a stream leader failing over) is waited out here, for
 * far less than that wait, rather than failing the request half published. Failing it made the seed's work start a new
 * attempt (a new epoch fencing out every chunk in flight), and the failures counted towards the table's backoff: a seed
 * stalled for minutes after a node was lost (seen in the nats-cluster suite).
 */
const CHUNK_PUBLISH_WAIT: Partial<OutageWait> = { maxWaitMs: 30_000, backoff: { initialMs: 250, maxMs: 2_000 } };

@Injectable()
export class SeedPlansService {
  private readonly publisher: PipelinePublisher;

  constructor(
    private readonly plans: SeedPlanRepository,
    private readonly state: PipelineStateRepository,
    @Inject(NATS_CONNECTION) connection: NatsConnection,
    private readonly schedulerWake: SchedulerWake,
    private readonly logger: JsonLogger,
  ) {
    this.publisher = new PipelinePublisher(connection, CHUNK_PUBLISH_WAIT);
  }

  async seedPlan(message: unknown, now = new Date()): Promise<RpcReply<SeedPlanReply>> {
    const guarded = guardSeedPlan(message);
    if (!guarded.ok) return rpcError(ErrorCode.ValidationFailed, guarded.problems);
    const request = guarded.value;
    const tableName = tableKey(request.table);
    const work = await this.workMessage(request, tableName);
    if (work === null) return rpcOk({ status: 'gone' });
    let kept = await this.plans.planOf(request.replicationId, tableName);
    if (kept !== null && !sameColumns(kept.plan.keyColumns, request.keyColumns)) {
      // The key changed since the plan was made: its bounds mean nothing now.
      this.logger.info('seed plan over another key dropped', { replicationId: request.replicationId, table: tableName, seedId: kept.plan.seedId });
      await this.plans.drop(request.replicationId, tableName);
      kept = null;
    }
    let plan: SeedPlan | null = kept?.plan ?? null;
    const loaded: ReadonlySet<number> = kept?.loaded ?? new Set();
    if (plan === null) {
      if (request.proposal === undefined) return rpcOk({ status: 'needed' });
      const { proposal } = request;
      plan = await this.plans.keep(request.replicationId, tableName, request, {
        seedId: proposal.seedId,
        startVersion: proposal.startVersion,
        sourceIncarnation: proposal.sourceIncarnation ?? null,
        keyColumns: request.keyColumns,
        bounds: proposal.bounds,
        chunkCount: proposal.bounds.length + 1,
      });
      if (plan === null) return rpcOk({ status: 'gone' });
    }
    const published = await this.publishChunks(work, request, plan, loaded, now);
    this.logger.info('seed chunks published', { replicationId: request.replicationId, table: tableName, seedId: plan.seedId, chunks: plan.chunkCount, published, epoch: request.epoch });
    return rpcOk({ status: 'published', published, count: plan.chunkCount });
  }

  /**
   * A chunk is in the warehouse. True when the report concerned a chunk of the table's seed in flight (recorded, or
   * ignored as no longer in flight); the last chunk releases the work and wakes the scheduler for the close.
   */
  async chunkLoaded(report: { replicationId: string; tableName: string; workId: string; epoch: number; seedId: string; chunk: number; rows: number }, now: Date): Promise<boolean> {
    const recorded = await this.plans.chunkLoaded(report.replicationId, report.tableName, report, report.seedId, report.chunk, report.rows, now);
    if (recorded === 'complete') {
      this.logger.info('every chunk of a seed loaded: its close is next', { replicationId: report.replicationId, table: report.tableName, seedId: report.seedId });
      this.schedulerWake.request();
    }
    return recorded !== 'ignored';
  }

  /** The work message the plan's chunks are published from: the table's work in flight, at the request's epoch. */
  private async workMessage(request: SeedPlanRequest, tableName: string): Promise<ExtractRequested | null> {
    const stored = await this.state.inFlightRequest(request.replicationId, tableName, request.workId);
    if (stored === null) return null;
    const guarded = guardExtractRequested({ ...stored, epoch: request.epoch });
    return guarded.ok && guarded.value.kind === 'seed' ? guarded.value : null;
  }

  private async publishChunks(work: ExtractRequested, request: SeedPlanRequest, plan: SeedPlan, loaded: ReadonlySet<number>, now: Date): Promise<number> {
    let published = 0;
    for (let index = 0; index < plan.chunkCount; index += 1) {
      if (loaded.has(index)) continue;
      const chunk: SeedChunk = {
        seedId: plan.seedId,
        index,
        count: plan.chunkCount,
        startVersion: plan.startVersion,
        ...(plan.sourceIncarnation !== null && { sourceIncarnation: plan.sourceIncarnation }),
        lower: index === 0 ? null : (plan.bounds[index - 1] ?? null),
        upper: plan.bounds[index] ?? null,
      };
      const message: ExtractRequested = { ...work, epoch: request.epoch, chunk, requestedAt: now.toISOString() };
      await this.publisher.publish(PipelineSubjects.extractRequested, message, `${work.workId}/chunk/${index}/${request.epoch}`);
      published += 1;
    }
    return published;
  }
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, index) => name === b[index]);
}

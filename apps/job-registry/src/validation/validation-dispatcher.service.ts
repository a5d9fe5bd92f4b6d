import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PipelineSubjects, parseTableKey, type ValidateRequested } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { PipelinePublisher } from '@svc/messaging';
import { ReplicationRepository, ValidationRepository, type ReplicationStore, type ValidationStore } from '@svc/registry-store';
import { failedOutcome } from './validation-outcome';
import { ValidationWake } from './validation-wake';

/** How often Pending tables are handed out and stalled ones looked for. */
export const VALIDATION_TICK_MS = 1000;
/** A comparison reports at least every 10 s (validate.service.ts): one silent for this long died with its worker. */
export const VALIDATION_STALL_MS = 60_000;
/** Dispatches of one table before it is given up as Failed. */
export const VALIDATION_MAX_DISPATCHES = 3;

/**
 * Hands Pending tables to the extractors (at most ParallelTablesLimit of a replication's tables compared at once)
 * and puts back those whose worker went silent. Several registries may run it: a table is claimed by a
 * compare-and-set on its state, and a stalled one by its work id.
 */
@Injectable()
export class ValidationDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    @Inject(ValidationRepository) private readonly validations: ValidationStore,
    @Inject(ReplicationRepository) private readonly replications: Pick<ReplicationStore, 'get'>,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    wake: ValidationWake,
  ) {
    wake.listen(() => this.round());
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.round(), VALIDATION_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One round now, or right after the one running. */
  round(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.dispatchAll()
      .catch((error: unknown) => this.logger.warn('validation round failed; the next one retries', { error }))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.round();
        }
      });
  }

  private async dispatchAll(now = new Date()): Promise<void> {
    for (const open of await this.validations.openByReplication()) {
      if (open.pending === 0) continue;
      const replication = await this.replications.get(open.replicationId);
      if (!replication) continue;
      const free = replication.config.parallelTablesLimit - open.running;
      for (const work of await this.validations.dispatch(open.replicationId, free, randomUUID, now)) {
        const table = parseTableKey(work.tableName);
        if (table === null) continue;
        const request: ValidateRequested = {
          workId: work.workId,
          validationId: work.validationId,
          replicationId: work.replicationId,
          table,
          configVersion: replication.version,
          ...(work.repair && { repair: true }),
          requestedAt: now.toISOString(),
        };
        try {
          await this.publisher.publish(PipelineSubjects.validateRequested, request, work.workId);
        } catch (error) {
          await this.validations.requeue(work.validationId, work.tableName, work.workId);
          this.logger.warn('could not queue a table validation; the next round retries', { replicationId: work.replicationId, table: work.tableName, error });
        }
      }
    }
    await this.putBackStalled(now);
  }

  private async putBackStalled(now: Date): Promise<void> {
    for (const stalled of await this.validations.stalled(new Date(now.getTime() - VALIDATION_STALL_MS))) {
      const where = { replicationId: stalled.replicationId, validationId: stalled.validationId, table: stalled.tableName };
      if (stalled.dispatches >= VALIDATION_MAX_DISPATCHES) {
        const reason = `no extractor finished comparing it in ${VALIDATION_MAX_DISPATCHES} tries (each went silent for ${VALIDATION_STALL_MS / 1000} s)`;
        await this.validations.finish(stalled.validationId, stalled.tableName, stalled.workId, failedOutcome('Failed', reason), now);
        this.logger.warn('table validation given up', where);
      } else if (await this.validations.requeue(stalled.validationId, stalled.tableName, stalled.workId)) {
        this.logger.warn('table validation went silent; dispatched again', where);
      }
    }
  }
}

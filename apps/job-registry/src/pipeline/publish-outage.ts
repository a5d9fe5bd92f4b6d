import type { JsonLogger } from '@svc/logging';

/** What the log needs of a work order that could not be published. */
export interface UnpublishedOrder {
  replicationId: string;
  tableName: string;
}

/**
 * Logs the bus refusing work once per outage, not once per table and pass: while NATS fails over, every pass (one per
 * scheduler tick) would otherwise log an error for each table it tried (the nats-cluster runs logged ~150 lines in 5 s
 * for three tables). Says when publishing works again and how long it did not.
 */
export class PublishOutage {
  private since: number | undefined;
  private refused = 0;

  constructor(
    private readonly logger: Pick<JsonLogger, 'error' | 'warn' | 'debug'>,
    private readonly now: () => number = Date.now,
  ) {}

  failed(order: UnpublishedOrder, error: unknown): void {
    this.refused += 1;
    const where = { replicationId: order.replicationId, table: order.tableName, error };
    if (this.since !== undefined) {
      this.logger.debug('could not publish work (the bus still refuses it)', where);
      return;
    }
    this.since = this.now();
    this.logger.error('could not publish work; the scheduler tries again every pass and logs when it can again', where);
  }

  succeeded(): void {
    if (this.since === undefined) return;
    const seconds = Math.round((this.now() - this.since) / 100) / 10;
    this.logger.warn('publishing work again', { afterSeconds: seconds, refusedPublishes: this.refused });
    this.since = undefined;
    this.refused = 0;
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { METRICS_HISTORY_MINUTES } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { MetricsHistoryRepository, type MetricSample, type MetricsHistoryStore } from '@svc/registry-store';

/** Samples older than the history are dropped at most this often, by whichever registry records one. */
const PRUNE_EVERY_MS = 10 * 60000;

/** Records what each loaded batch did into its table's per-minute history, and keeps that history to 7 days. */
@Injectable()
export class MetricsHistoryService {
  private nextPruneAt = 0;

  constructor(
    @Inject(MetricsHistoryRepository) private readonly history: MetricsHistoryStore,
    private readonly logger: JsonLogger,
  ) {}

  /** Best effort: a lost sample leaves a gap in a chart, while failing here would stall the table's completion. */
  async record(sample: MetricSample): Promise<void> {
    try {
      await this.history.record(sample);
      if (sample.at.getTime() >= this.nextPruneAt) {
        this.nextPruneAt = sample.at.getTime() + PRUNE_EVERY_MS;
        await this.history.prune(new Date(sample.at.getTime() - METRICS_HISTORY_MINUTES * 60000));
      }
    } catch (error) {
      this.logger.warn('could not record a metrics sample', { replicationId: sample.replicationId, table: sample.tableName, error });
    }
  }
}

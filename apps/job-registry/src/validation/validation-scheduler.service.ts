import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { JsonLogger } from '@svc/logging';
import { ReplicationRepository, type ReplicationStore, type ScheduledValidationListing } from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { withinDailyWindow } from '../pipeline/daily-window';
import { ValidationService } from './validation.service';

/** How often the validation schedules are looked at: a scheduled validation starts at most this late. */
export const VALIDATION_SCHEDULE_TICK_MS = 10_000;

/**
 * When a replication's ValidationSchedule lets a validation start now: the replication runs, the daily window is
 * open; whether the interval has passed since the last validation is the store's to decide (createScheduled).
 */
export function scheduledValidationMayStart(listing: ScheduledValidationListing, now: Date): boolean {
  const { schedule } = listing;
  return listing.status === 'Running' && listing.dataReplication && schedule.repeatIntervalInMinutes > 0 && withinDailyWindow(now, schedule.fromTime, schedule.toTime);
}

/**
 * Starts the validations replications schedule (ValidationSchedule): every RepeatIntervalInMinutes within the daily
 * window, counted from the last validation of the replication, requested or scheduled; never while one is open. And the
 * validation that follows a repair by reseed, once the reseed has completed.
 */
@Injectable()
export class ValidationScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private readonly minuteMs: number;

  constructor(
    @Inject(ReplicationRepository) private readonly replications: Pick<ReplicationStore, 'withValidationSchedule'>,
    private readonly validations: ValidationService,
    private readonly logger: JsonLogger,
    @Inject(REGISTRY_CONFIG) config: Pick<RegistryConfig, 'pipeline'>,
  ) {
    this.minuteMs = config.pipeline.minuteMs;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), VALIDATION_SCHEDULE_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One look at every schedule, unless the last is still going. */
  tick(now = new Date()): Promise<void> {
    this.running ??= this.startDue(now)
      .catch((error: unknown) => this.logger.warn('looking at the validation schedules failed; the next tick retries', { error }))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async startDue(now: Date): Promise<void> {
    await this.validations.startRevalidations(now);
    for (const listing of await this.replications.withValidationSchedule()) {
      if (!scheduledValidationMayStart(listing, now)) continue;
      const notSince = new Date(now.getTime() - listing.schedule.repeatIntervalInMinutes * this.minuteMs);
      await this.validations.startScheduled(listing.replicationId, notSince, now);
    }
  }
}

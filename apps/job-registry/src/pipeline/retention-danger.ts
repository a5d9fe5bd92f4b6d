import { retentionHours, type RetentionPeriod } from '@svc/contracts';

/** Share of the retention period after which an unconsumed watermark is in danger of being purged. */
export const RETENTION_DANGER_SHARE = 0.75;

export interface WatermarkState {
  tracked: boolean;
  /** When the watermark was last confirmed current (a change cycle or seed completed). */
  watermarkAt: Date | null;
  retentionAlertedAt: Date | null;
}

/**
 * True when a tracked table's watermark has not moved for 75 % of ChangeTrackingRetentionPeriod and no
 * alert was raised for it since: soon the source purges changes the table still needs and it must reseed.
 */
export function retentionInDanger(now: Date, table: WatermarkState, retention: RetentionPeriod): boolean {
  if (!table.tracked || table.watermarkAt === null) return false;
  if (table.retentionAlertedAt !== null && table.retentionAlertedAt >= table.watermarkAt) return false;
  const retentionMs = retentionHours(retention) * 3600000;
  return now.getTime() - table.watermarkAt.getTime() >= retentionMs * RETENTION_DANGER_SHARE;
}

import type { RetentionPeriod } from './replication-config';

const RETENTION_HOURS: Record<RetentionPeriod, number> = {
  '12 Hours': 12,
  '1 Day': 24,
  '2 Days': 48,
  '3 Days': 72,
  '4 Days': 96,
  '5 Days': 120,
  '6 Days': 144,
  '7 Days': 168,
  '8 Days': 192,
};

/** ChangeTrackingRetentionPeriod in hours. */
export function retentionHours(retention: RetentionPeriod): number {
  return RETENTION_HOURS[retention];
}

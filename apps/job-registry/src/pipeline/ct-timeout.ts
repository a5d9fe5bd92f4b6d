/** The level after which change cycles run without a timeout (seed §2.2: doubled twice, then none). */
export const UNLIMITED_TIMEOUT_LEVEL = 3;

/**
 * CtProcessTimeoutInMinutes at a doubling level: the configured value, then double after a cancel, then
 * double again, then no limit (null) after a third; a successful cycle returns the table to level 0.
 */
export function ctTimeoutMinutes(configuredMinutes: number, level: number): number | null {
  if (level >= UNLIMITED_TIMEOUT_LEVEL) return null;
  return configuredMinutes * 2 ** Math.max(0, level);
}

export function levelAfterCancel(level: number): number {
  return Math.min(level + 1, UNLIMITED_TIMEOUT_LEVEL);
}

/** What to do with a unit of work in flight. */
export type OverdueVerdict = 'cancel' | 'stale' | null;

export interface InFlightWork {
  kind: 'seed' | 'changes';
  since: Date;
  /** Last sign of progress (a seed part loaded), else `since`. */
  progressAt: Date;
  ctTimeoutLevel: number;
}

export interface OverdueSettings {
  minuteMs: number;
  /** A seed without progress for this long is released (its workers died and redelivery gave up). */
  staleWorkMs: number;
  /** A change cycle without a timeout (level 3) is released after this long: a lost message must not stop a table forever. */
  unlimitedCycleMs: number;
}

/**
 * A change cycle past its timeout is cancelled (and the next one gets the next level); seeds are not
 * change-tracking runs and have no timeout, only the stale-work safety net.
 */
export function overdueVerdict(now: Date, work: InFlightWork, configuredMinutes: number, settings: OverdueSettings): OverdueVerdict {
  if (work.kind === 'seed') return now.getTime() - work.progressAt.getTime() > settings.staleWorkMs ? 'stale' : null;
  const minutes = ctTimeoutMinutes(configuredMinutes, work.ctTimeoutLevel);
  const elapsed = now.getTime() - work.since.getTime();
  if (minutes === null) return elapsed > settings.unlimitedCycleMs ? 'stale' : null;
  return elapsed > minutes * settings.minuteMs ? 'cancel' : null;
}

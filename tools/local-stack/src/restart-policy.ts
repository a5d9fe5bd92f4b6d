/** How long a crashed service waits before it is started again: doubling from the first delay up to the cap. */
export const FIRST_RESTART_DELAY_MS = 1000;
export const MAX_RESTART_DELAY_MS = 30000;
/** A service that ran this long before it stopped counts as healthy again: its next restart is immediate-ish. */
export const STABLE_RUN_MS = 60000;

/**
 * The restart schedule of one service, as a process supervisor (docker's `restart: unless-stopped`) keeps
 * it: a service that keeps crashing at start waits longer each time instead of spinning, one that ran for
 * a while starts again after the first delay.
 */
export class RestartPolicy {
  private crashesInARow = 0;

  /** The delay before the next start, for a run that lasted `ranMs`. */
  delayAfterExit(ranMs: number): number {
    if (ranMs >= STABLE_RUN_MS) this.crashesInARow = 0;
    const delay = Math.min(FIRST_RESTART_DELAY_MS * 2 ** this.crashesInARow, MAX_RESTART_DELAY_MS);
    this.crashesInARow += 1;
    return delay;
  }
}

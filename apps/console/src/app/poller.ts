/**
 * Runs `tick` now and then every `intervalMs` after the previous run ended (never two at once), until stopped;
 * given as a function, the interval is asked after each run (faster while something moves). The timer functions
 * are injected so that tests can drive it.
 */
export class Poller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly intervalMs: number | (() => number),
    private readonly timers: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout } = globalThis,
  ) {}

  start(): this {
    void this.run();
    return this;
  }

  /** Runs now (after an action) instead of waiting for the next turn. */
  refresh(): void {
    if (this.stopped) return;
    this.timers.clearTimeout(this.timer);
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.timers.clearTimeout(this.timer);
  }

  private async run(): Promise<void> {
    try {
      await this.tick();
    } catch (error) {
      console.error('console refresh failed', error);
    }
    if (!this.stopped) this.timer = this.timers.setTimeout(() => void this.run(), typeof this.intervalMs === 'number' ? this.intervalMs : this.intervalMs());
  }
}

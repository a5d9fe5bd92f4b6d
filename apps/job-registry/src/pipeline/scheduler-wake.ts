import { Injectable } from '@nestjs/common';

/**
 * How what learns that a table's next cycle is due now (a loaded change batch that carried rows) asks the
 * scheduler for a pass before its tick, without depending on the scheduler.
 */
@Injectable()
export class SchedulerWake {
  private listener: () => void = () => undefined;

  /** The scheduler's: called on every request. */
  listen(listener: () => void): void {
    this.listener = listener;
  }

  request(): void {
    this.listener();
  }
}

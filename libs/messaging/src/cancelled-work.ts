import type { NatsConnection, Subscription } from 'nats';
import { Subjects, guardWorkCancelled, type WorkCancelled } from '@svc/contracts';
import { decodeJson, encodeJson } from './json-payload';
import { busNames } from './bus-names';

export const DEFAULT_CANCELLED_WORK_CAPACITY = 10_000;

/**
 * Tells every worker connected right now that a unit of work was cancelled (core NATS, at most once: a
 * worker that is not connected misses it). Best effort by design: the per-table epoch fence in staging
 * and warehouse is what keeps a cancelled unit's batches out.
 */
export function publishWorkCancelled(connection: NatsConnection, message: WorkCancelled): void {
  connection.publish(busNames().subject(Subjects.workCancelled), encodeJson(message));
}

export interface CancelledWorkOptions {
  /** Work ids remembered at most; the oldest are forgotten first. Default 10,000. */
  capacity?: number;
  /** A malformed event, or trouble with the subscription. Default: ignored. */
  onError?: (error: unknown, activity: string) => void;
}

/**
 * The work ids cancelled since this process subscribed, so a worker can drop a cancelled unit's messages
 * (and stop a long seed) instead of finishing work nobody waits for. Remembers a bounded number of ids:
 * a cancelled unit's messages arrive soon after the cancellation, if at all.
 */
export class CancelledWork {
  /** Insertion order is age order: the first id is the oldest. */
  private readonly ids = new Set<string>();
  private readonly capacity: number;
  private subscription: Subscription | undefined;

  constructor(
    private readonly connection: NatsConnection,
    private readonly options: CancelledWorkOptions = {},
  ) {
    this.capacity = options.capacity ?? DEFAULT_CANCELLED_WORK_CAPACITY;
    if (!Number.isSafeInteger(this.capacity) || this.capacity < 1) throw new RangeError(`capacity must be an integer >= 1, got ${this.capacity}`);
  }

  /** Subscribes; once it resolves the server has the subscription, so a cancellation published after it is seen. */
  async start(): Promise<void> {
    if (this.subscription !== undefined) return;
    this.subscription = this.connection.subscribe(busNames().subject(Subjects.workCancelled), {
      callback: (error, message) => {
        if (error) this.report(error, 'receiving a cancellation');
        else this.receive(message.data);
      },
    });
    await this.connection.flush();
  }

  has(workId: string): boolean {
    return this.ids.has(workId);
  }

  /** Stops listening; the ids remembered so far stay. */
  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    if (subscription === undefined || this.connection.isClosed()) return;
    await subscription.drain().catch((error: unknown) => this.report(error, 'closing the cancellation subscription'));
  }

  private receive(data: Uint8Array): void {
    const decoded = decodeJson(data);
    if (!decoded.ok) return this.report(new Error(`a cancellation that is not JSON: ${decoded.reason}`), 'reading a cancellation');
    const guarded = guardWorkCancelled(unwrapNestEvent(decoded.value));
    if (!guarded.ok) return this.report(new Error(`a malformed cancellation: ${guarded.problems.join('; ')}`), 'reading a cancellation');
    this.remember(guarded.value.workId);
  }

  private remember(workId: string): void {
    this.ids.delete(workId);
    this.ids.add(workId);
    while (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next();
      if (oldest.done === true) break;
      this.ids.delete(oldest.value);
    }
  }

  private report(error: unknown, activity: string): void {
    try {
      this.options.onError?.(error, activity);
    } catch {
      // A failing error hook must not break the subscription.
    }
  }
}

/**
 * WorkCancelled is an event of the contracts' EventContracts, which NatsRequester.publish sends wrapped
 * as a Nest event packet ({ pattern, data }); accept that form too, so either publisher reaches workers.
 */
function unwrapNestEvent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const packet = value as Record<string, unknown>;
  return packet['pattern'] === Subjects.workCancelled && 'data' in packet ? packet['data'] : value;
}

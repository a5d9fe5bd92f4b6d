import { RetryableWorkError, abortableSleep } from '@svc/messaging';

export interface PartOrderOptions {
  /** How long a part waits in its worker slot for the part before it; then it is retried later. */
  timeoutMs?: number;
  pollMs?: number;
  /** Aborted when the worker shuts down: the wait ends at once (WorkAbortedError) and the part goes back. */
  shutdown?: AbortSignal;
}

/**
 * Seed parts, and the change batches of one unit of work, are applied in order. A part that arrives before its predecessor waits here, holding its
 * message alive (the consumer heartbeats long handlers), instead of being retried: retries are bounded,
 * and spending them on ordering would make a large seed give up and start over again and again.
 */
export async function waitForPreviousPart(isApplied: () => Promise<boolean>, previousBatchId: string, options: PartOrderOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10 * 60 * 1000;
  const pollMs = options.pollMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  while (!(await isApplied())) {
    if (Date.now() >= deadline) throw new RetryableWorkError(`batch ${previousBatchId} is still not applied; the batches of one unit of work are applied in order`);
    await abortableSleep(pollMs, options.shutdown);
  }
}

/** How long a table must stay missing before a waiting seed part counts it lost (see tableLoss). */
export const TABLE_LOSS_GRACE_MS = 10_000;

/**
 * A check, polled while a seed part waits for its predecessor, that the table the seed fills is lost (its
 * database or schema recreated, or the table dropped): then the predecessor, loaded before, never shows
 * up in the batch log again, and the seed must start over. A missing table alone does not tell: a first
 * seed's part 0 may still be on its way. But part 0 is delivered before the later parts and creates the
 * table first thing, so a table missing at every check for `graceMs` is lost.
 */
export function tableLoss(tableExists: () => Promise<boolean>, graceMs = TABLE_LOSS_GRACE_MS): () => Promise<boolean> {
  let missingSince: number | undefined;
  return async () => {
    if (await tableExists()) {
      missingSince = undefined;
      return false;
    }
    missingSince ??= Date.now();
    return Date.now() - missingSince >= graceMs;
  };
}

/** How long a part may wait in the last free slot of its process (SeedPartOrder). */
const LAST_SLOT_TIMEOUT_MS = 30000;

/**
 * The last free slot's wait for a change batch of a chain. After a worker dies mid-chain its batches come back only
 * after the ack wait, while their successors are delivered at once and take the free slots: each successor in the
 * last slot then held it for the whole wait, and the chain advanced a batch per 30 s (seen in the kill test). A short
 * wait hands the slot back to the redelivered predecessor; the successor returns after its retry delay.
 */
export const CHANGE_BATCH_LAST_SLOT_WAIT_MS = 3000;

/**
 * Waits for predecessors without letting them starve: were every worker slot of a process taken by a part
 * waiting for an earlier one, that earlier part (redelivered after a failed attempt) could not be taken
 * there, and the seed would stand still for the whole wait. So a part waits the full time only while
 * another slot of the process is free; a part in the last free slot waits at most 30 s, then is retried
 * later (JetStream hands redeliveries out first, so the predecessor gets that slot).
 */
export class SeedPartOrder {
  private waiting = 0;

  /** `slots`: the worker's concurrency (messages it works on at once). */
  constructor(
    private readonly slots: number,
    private readonly options: PartOrderOptions & { lastSlotTimeoutMs?: number } = {},
  ) {}

  /**
   * `lastSlotTimeoutMs` overrides the last free slot's wait for this part: a change batch of a chain gives its slot up
   * sooner than a seed part (CHANGE_BATCH_LAST_SLOT_WAIT_MS).
   */
  async waitForPrevious(isApplied: () => Promise<boolean>, previousBatchId: string, lastSlotTimeoutMs?: number): Promise<void> {
    if (await isApplied()) return;
    const inLastSlot = this.waiting >= this.slots - 1;
    const timeoutMs = inLastSlot ? (lastSlotTimeoutMs ?? this.options.lastSlotTimeoutMs ?? LAST_SLOT_TIMEOUT_MS) : this.options.timeoutMs;
    this.waiting += 1;
    try {
      await waitForPreviousPart(isApplied, previousBatchId, { ...this.options, ...(timeoutMs !== undefined && { timeoutMs }) });
    } finally {
      this.waiting -= 1;
    }
  }
}

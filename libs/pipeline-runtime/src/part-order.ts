import { RetryableWorkError, abortableSleep, type SlotReturn, type WorkContext } from '@svc/messaging';

export interface PartOrderOptions {
  /** How long a part waits for the part before it, in its worker slot or lent (each wait counted anew); then it is retried later. Default 10 min. */
  timeoutMs?: number;
  /** The first pause between checks; it doubles up to maxPollMs (a part that waits long asks its database less often). */
  pollMs?: number;
  maxPollMs?: number;
  /** Aborted when the worker shuts down: the wait ends at once (WorkAbortedError) and the part goes back. */
  shutdown?: AbortSignal;
}

/**
 * Seed parts, and the change batches of one unit of work, are applied in order. A part that arrives before its predecessor waits here, holding its
 * message alive (the consumer heartbeats long handlers), instead of being retried: retries are bounded,
 * and spending them on ordering would make a large seed give up and start over again and again.
 */
export async function waitForPreviousPart(
  isApplied: () => Promise<boolean>,
  previousBatchId: string,
  options: PartOrderOptions = {},
  /** Resolves when this process applied the predecessor: checked again at once instead of after the pause. */
  appliedHere?: Promise<void>,
  /** Asked at every check: true ends the wait early ('stopped'), the predecessor not applied. */
  stopEarly?: () => boolean,
): Promise<'applied' | 'stopped'> {
  const timeoutMs = options.timeoutMs ?? 10 * 60 * 1000;
  const maxPollMs = options.maxPollMs ?? 2000;
  let pollMs = Math.min(options.pollMs ?? 250, maxPollMs);
  const deadline = Date.now() + timeoutMs;
  let nudge = appliedHere?.then(() => 'applied' as const);
  while (!(await isApplied())) {
    if (stopEarly?.() === true) return 'stopped';
    if (Date.now() >= deadline) throw new RetryableWorkError(`batch ${previousBatchId} is still not applied; the batches of one unit of work are applied in order`);
    const pause = abortableSleep(Math.min(pollMs, deadline - Date.now()), options.shutdown);
    if ((await (nudge === undefined ? pause : Promise.race([pause, nudge]))) === 'applied') nudge = undefined;
    pollMs = Math.min(pollMs * 2, maxPollMs);
  }
  return 'applied';
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

/** How a part waits in SeedPartOrder: what its worker lends (WorkContext.lendSlot), and its last-slot wait. */
export interface PartWait {
  /** The worker's offer to hold the message outside its slot while it waits. */
  lendSlot?: WorkContext['lendSlot'];
  /** Overrides the last free slot's wait: a change batch of a chain gives its slot up sooner than a seed part (CHANGE_BATCH_LAST_SLOT_WAIT_MS). */
  lastSlotTimeoutMs?: number;
}

/**
 * Waits for predecessors without letting them starve. A waiting part first lends its worker slot (WorkContext.lendSlot):
 * the message stays in hand, no delivery spent, and the slot is free for the very predecessor it waits for, which
 * after a killed worker comes back only after the ack wait. Where the worker lends no more slots, the part waits in its
 * slot and asks for the loan again at every check (the worker lends past its bound while a lent part waits to take a
 * slot back: this very slot may be the one it needs). Were every slot taken by a waiting part, the predecessor could
 * not be taken there, and the chain would stand still for the whole wait. So a part in its slot waits the full time
 * only while another slot of the process is free; a part in the last free slot waits at most 30 s, then is retried
 * later (JetStream hands redeliveries out first, so the predecessor gets that slot).
 */
export class SeedPartOrder {
  private waiting = 0;
  /** The parts waiting here, by the batch each waits for: woken when this process applies it. */
  private readonly waiters = new Map<string, Set<() => void>>();

  /** `slots`: the worker's concurrency (messages it works on at once). */
  constructor(
    private readonly slots: number,
    private readonly options: PartOrderOptions & { lastSlotTimeoutMs?: number } = {},
  ) {}

  async waitForPrevious(isApplied: () => Promise<boolean>, previousBatchId: string, wait: PartWait = {}): Promise<void> {
    if (await isApplied()) return;
    let wake = (): void => undefined;
    const appliedHere = new Promise<void>((resolve) => (wake = resolve));
    const waiting = this.waiters.get(previousBatchId) ?? new Set();
    waiting.add(wake);
    this.waiters.set(previousBatchId, waiting);
    try {
      const loan: { slotBack: SlotReturn | undefined } = { slotBack: wait.lendSlot?.() };
      if (loan.slotBack === undefined) {
        // The worker lends no more slots now, but lends again as soon as a part waits to take a slot back: the slot this
        // part holds may be the one its predecessor needs. So the loan is asked for again at every check.
        const lendSlot = wait.lendSlot;
        const askAgain = lendSlot === undefined ? undefined : () => (loan.slotBack = lendSlot()) !== undefined;
        if ((await this.waitInSlot(isApplied, previousBatchId, wait.lastSlotTimeoutMs, appliedHere, askAgain)) === 'applied') return;
      }
      // On failure the worker ends the loan itself: a part that gives up needs no slot to be handed back.
      await waitForPreviousPart(isApplied, previousBatchId, this.options, appliedHere);
      return await loan.slotBack?.();
    } finally {
      waiting.delete(wake);
      if (waiting.size === 0 && this.waiters.get(previousBatchId) === waiting) this.waiters.delete(previousBatchId);
    }
  }

  /** This process applied (or found applied) `batchId`: the parts waiting for it check at once. */
  applied(batchId: string): void {
    for (const wake of this.waiters.get(batchId) ?? []) wake();
  }

  private async waitInSlot(
    isApplied: () => Promise<boolean>,
    previousBatchId: string,
    lastSlotTimeoutMs: number | undefined,
    appliedHere: Promise<void>,
    lent?: () => boolean,
  ): Promise<'applied' | 'stopped'> {
    const inLastSlot = this.waiting >= this.slots - 1;
    const timeoutMs = inLastSlot ? (lastSlotTimeoutMs ?? this.options.lastSlotTimeoutMs ?? LAST_SLOT_TIMEOUT_MS) : this.options.timeoutMs;
    this.waiting += 1;
    try {
      return await waitForPreviousPart(isApplied, previousBatchId, { ...this.options, ...(timeoutMs !== undefined && { timeoutMs }) }, appliedHere, lent);
    } finally {
      this.waiting -= 1;
    }
  }
}

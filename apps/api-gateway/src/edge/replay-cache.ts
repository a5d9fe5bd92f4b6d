export type ReplayVerdict = 'first' | 'replayed' | 'full';

/**
 * Signatures already received, each until the moment it stops being valid anyway, so that a signed request is
 * accepted once. At most `capacity` entries whatever the traffic: expired ones are swept at most once per
 * `sweepEveryMs` (a sweep walks every entry), and a signature that finds the cache full of unexpired ones is
 * answered 'full' rather than forgotten — forgetting one would let it be replayed.
 */
export class ReplayCache {
  private readonly expiryBySignature = new Map<string, number>();
  private nextSweepAt = 0;

  constructor(
    private readonly capacity: number,
    private readonly sweepEveryMs = 1000,
  ) {}

  get size(): number {
    return this.expiryBySignature.size;
  }

  /** Records `signature` until `expiresAt` (epoch ms) unless it is already there; `now` is epoch ms. */
  admit(signature: string, expiresAt: number, now: number): ReplayVerdict {
    const seenUntil = this.expiryBySignature.get(signature);
    if (seenUntil !== undefined && seenUntil >= now) return 'replayed';
    if (now >= this.nextSweepAt) {
      this.sweep(now);
      this.nextSweepAt = now + this.sweepEveryMs;
    }
    if (!this.expiryBySignature.has(signature) && this.expiryBySignature.size >= this.capacity) return 'full';
    this.expiryBySignature.set(signature, expiresAt);
    return 'first';
  }

  private sweep(now: number): void {
    for (const [signature, expiresAt] of this.expiryBySignature) {
      if (expiresAt < now) this.expiryBySignature.delete(signature);
    }
  }
}

/** 'keyFull': the caller's own share is full; 'full': the whole cache is. */
export type ReplayVerdict = 'first' | 'replayed' | 'keyFull' | 'full';

/**
 * Signatures already received, each until the moment it stops being valid anyway, so that a signed request is
 * accepted once. Each access key has a share of its own, so that a key filling its share is refused while others
 * are not (issue 36); at most `capacity` entries in all whatever the traffic. Expired entries are swept at most once
 * per `sweepEveryMs` (a sweep walks every entry and forgets keys left with none), and a signature that finds no room
 * for unexpired ones is refused rather than forgotten: forgetting one would let it be replayed.
 */
export class ReplayCache {
  private readonly expiryBySignatureByKey = new Map<string, Map<string, number>>();
  private entries = 0;
  private nextSweepAt = 0;

  constructor(
    private readonly capacity: number,
    private readonly perKey: number,
    private readonly sweepEveryMs = 1000,
  ) {}

  get size(): number {
    return this.entries;
  }

  /** Access keys holding at least one entry. */
  get keys(): number {
    return this.expiryBySignatureByKey.size;
  }

  /** Records `signature` of `accessKeyId` until `expiresAt` (epoch ms) unless it is already there; `now` is epoch ms. */
  admit(accessKeyId: string, signature: string, expiresAt: number, now: number): ReplayVerdict {
    const seenUntil = this.expiryBySignatureByKey.get(accessKeyId)?.get(signature);
    if (seenUntil !== undefined && seenUntil >= now) return 'replayed';
    if (now >= this.nextSweepAt) {
      this.sweep(now);
      this.nextSweepAt = now + this.sweepEveryMs;
    }
    const share = this.expiryBySignatureByKey.get(accessKeyId) ?? new Map<string, number>();
    if (!share.has(signature)) {
      if (share.size >= this.perKey) return 'keyFull';
      if (this.entries >= this.capacity) return 'full';
      this.entries += 1;
    }
    share.set(signature, expiresAt);
    this.expiryBySignatureByKey.set(accessKeyId, share);
    return 'first';
  }

  /** When the earliest signature `accessKeyId` holds expires (epoch ms): its share has room again by then. */
  roomAt(accessKeyId: string): number | undefined {
    let earliest: number | undefined;
    for (const expiresAt of this.expiryBySignatureByKey.get(accessKeyId)?.values() ?? []) {
      if (earliest === undefined || expiresAt < earliest) earliest = expiresAt;
    }
    return earliest;
  }

  private sweep(now: number): void {
    for (const [accessKeyId, share] of this.expiryBySignatureByKey) {
      for (const [signature, expiresAt] of share) {
        if (expiresAt >= now) continue;
        share.delete(signature);
        this.entries -= 1;
      }
      if (share.size === 0) this.expiryBySignatureByKey.delete(accessKeyId);
    }
  }
}

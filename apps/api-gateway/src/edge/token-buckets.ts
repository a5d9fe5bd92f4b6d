interface Bucket {
  tokens: number;
  /** When `tokens` was counted (epoch ms). */
  at: number;
}

/**
 * A token bucket per key: `burst` calls at once, then `ratePerSecond`. A key whose bucket has filled up again is
 * forgotten (a sweep at most every `sweepEveryMs`), so only keys that called lately are held; past `maxKeys`, the one
 * that called least lately is forgotten first (it gets a full bucket back: a small gift, and memory stays bounded).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private nextSweepAt = 0;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly maxKeys = 10_000,
    private readonly sweepEveryMs = 10_000,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  /** The ms until `key`'s bucket has a token at `now` (epoch ms), 0 when it has one; takes nothing. */
  waitFor(key: string, now: number): number {
    const tokens = this.tokensAt(this.buckets.get(key), now);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / this.ratePerSecond);
  }

  /** Takes a token from `key`'s bucket at `now` (epoch ms): 0 when there was one, else the ms until there is. */
  take(key: string, now: number): number {
    if (now >= this.nextSweepAt) {
      this.sweep(now);
      this.nextSweepAt = now + this.sweepEveryMs;
    }
    const tokens = this.tokensAt(this.buckets.get(key), now);
    // Deleted and set again, so that the map's order is the order keys last called in.
    this.buckets.delete(key);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return Math.ceil(((1 - tokens) * 1000) / this.ratePerSecond);
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value ?? key);
    return 0;
  }

  private tokensAt(bucket: Bucket | undefined, now: number): number {
    if (bucket === undefined) return this.burst;
    // A clock that stepped back refills nothing.
    const elapsedMs = Math.max(0, now - bucket.at);
    return Math.min(this.burst, bucket.tokens + (elapsedMs * this.ratePerSecond) / 1000);
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.tokensAt(bucket, now) >= this.burst) this.buckets.delete(key);
    }
  }
}

import { TokenBuckets } from './token-buckets';

const T0 = 1_700_000_000_000;

describe('TokenBuckets (issue 36)', () => {
  it('lets a key make `burst` calls at once, then refuses it until a token is back, saying how long that is', () => {
    const buckets = new TokenBuckets(2, 3);
    for (let call = 0; call < 3; call += 1) expect(buckets.take('K', T0)).toBe(0);
    expect(buckets.take('K', T0)).toBe(500);
    expect(buckets.take('K', T0 + 250)).toBe(250);
    expect(buckets.take('K', T0 + 500)).toBe(0);
    expect(buckets.take('K', T0 + 500)).toBe(500);
  });

  it('keeps each key to its own bucket: one key over its rate does not slow another', () => {
    const buckets = new TokenBuckets(1, 2);
    for (let call = 0; call < 50; call += 1) buckets.take('FLOODER', T0 + call);
    expect(buckets.take('FLOODER', T0 + 50)).toBeGreaterThan(0);
    expect(buckets.take('BYSTANDER', T0 + 50)).toBe(0);
    expect(buckets.take('BYSTANDER', T0 + 50)).toBe(0);
  });

  it('refills at the rate, never beyond the burst, and not at all when the clock steps back', () => {
    const buckets = new TokenBuckets(10, 5);
    for (let call = 0; call < 5; call += 1) buckets.take('K', T0);
    // An hour later the bucket holds 5, not 36,000.
    for (let call = 0; call < 5; call += 1) expect(buckets.take('K', T0 + 3_600_000)).toBe(0);
    expect(buckets.take('K', T0 + 3_600_000)).toBeGreaterThan(0);
    expect(buckets.take('K', T0)).toBeGreaterThan(0);
  });

  it('forgets keys whose bucket has filled up again, so that only keys that called lately are held', () => {
    const buckets = new TokenBuckets(10, 10, 10_000, 1000);
    for (let key = 0; key < 1000; key += 1) buckets.take(`K${key}`, T0);
    expect(buckets.size).toBe(1000);
    // 0.1 s refills the one token each took; the sweep due at T0 + 1 s forgets them all but the caller.
    buckets.take('LATE', T0 + 1000);
    expect(buckets.size).toBe(1);
  });

  it('holds at most maxKeys, forgetting the one that called least lately', () => {
    const buckets = new TokenBuckets(1, 1, 3, 3_600_000);
    for (const key of ['A', 'B', 'C']) buckets.take(key, T0);
    expect(buckets.take('A', T0 + 1)).toBeGreaterThan(0);
    buckets.take('D', T0 + 2);
    expect(buckets.size).toBe(3);
    // B called least lately and was forgotten: it has a full bucket again; A, which called since, has not.
    expect(buckets.take('B', T0 + 3)).toBe(0);
    expect(buckets.take('A', T0 + 3)).toBeGreaterThan(0);
  });
});

import { ReplayCache } from './replay-cache';

const T0 = 1_700_000_000_000;
const WINDOW_MS = 15 * 60_000;

describe('ReplayCache', () => {
  it('admits a signature once and refuses it again while it is valid', () => {
    const cache = new ReplayCache(10, 10);
    expect(cache.admit('K', 'sig-a', T0 + WINDOW_MS, T0)).toBe('first');
    expect(cache.admit('K', 'sig-a', T0 + WINDOW_MS, T0 + 1000)).toBe('replayed');
    expect(cache.admit('K', 'sig-a', T0 + WINDOW_MS, T0 + WINDOW_MS)).toBe('replayed');
    expect(cache.admit('K', 'sig-b', T0 + WINDOW_MS, T0 + 1000)).toBe('first');
  });

  it('forgets a signature once it has expired (the verifier refuses its date by then anyway)', () => {
    const cache = new ReplayCache(10, 10);
    cache.admit('K', 'sig-a', T0 + WINDOW_MS, T0);
    expect(cache.admit('K', 'sig-a', T0 + 2 * WINDOW_MS, T0 + WINDOW_MS + 1)).toBe('first');
  });

  it('evicts expired entries, and keys left with none, so that its size follows the traffic of the last window only', () => {
    const cache = new ReplayCache(1000, 1000);
    for (let i = 0; i < 500; i += 1) cache.admit(`K${i % 50}`, `old-${i}`, T0 + WINDOW_MS, T0);
    expect([cache.size, cache.keys]).toEqual([500, 50]);
    cache.admit('K0', 'new', T0 + 3 * WINDOW_MS, T0 + 2 * WINDOW_MS);
    expect([cache.size, cache.keys]).toEqual([1, 1]);
  });

  it('answers full, and does not forget what it holds, when every entry is still valid', () => {
    const cache = new ReplayCache(3, 3);
    for (const signature of ['a', 'b', 'c']) expect(cache.admit(`K-${signature}`, signature, T0 + WINDOW_MS, T0)).toBe('first');
    expect(cache.admit('K-d', 'd', T0 + WINDOW_MS, T0 + 5000)).toBe('full');
    expect(cache.size).toBe(3);
    for (const signature of ['a', 'b', 'c']) expect(cache.admit(`K-${signature}`, signature, T0 + WINDOW_MS, T0 + 5000)).toBe('replayed');
  });

  it('makes room again once entries expire', () => {
    const cache = new ReplayCache(2, 2);
    cache.admit('K', 'a', T0 + 1000, T0);
    cache.admit('K', 'b', T0 + WINDOW_MS, T0);
    expect(cache.admit('K', 'c', T0 + WINDOW_MS, T0 + 500)).toBe('keyFull');
    expect(cache.admit('K', 'c', T0 + WINDOW_MS, T0 + 2000)).toBe('first');
    expect(cache.admit('K', 'b', T0 + WINDOW_MS, T0 + 2000)).toBe('replayed');
  });

  it('sweeps at most once per interval, so a full cache under attack costs no walk per call', () => {
    const cache = new ReplayCache(2, 2, 10_000);
    cache.admit('K', 'a', T0 + 1000, T0);
    cache.admit('L', 'b', T0 + WINDOW_MS, T0);
    // 'a' expired at T0 + 1000, but the last sweep was at T0: the next is due at T0 + 10 s.
    expect(cache.admit('M', 'c', T0 + WINDOW_MS, T0 + 5000)).toBe('full');
    expect(cache.admit('M', 'c', T0 + WINDOW_MS, T0 + 10_000)).toBe('first');
  });

  describe('a share per access key (issue 36)', () => {
    it("refuses a key whose share is full, and keeps admitting other keys' signatures", () => {
      const cache = new ReplayCache(100, 3);
      for (const signature of ['a', 'b', 'c']) expect(cache.admit('FLOODER', signature, T0 + WINDOW_MS, T0)).toBe('first');
      expect(cache.admit('FLOODER', 'd', T0 + WINDOW_MS, T0 + 1000)).toBe('keyFull');
      expect(cache.admit('FLOODER', 'a', T0 + WINDOW_MS, T0 + 1000)).toBe('replayed');
      expect(cache.admit('BYSTANDER', 'd', T0 + WINDOW_MS, T0 + 1000)).toBe('first');
      expect(cache.size).toBe(4);
    });

    it('keeps signatures apart by key: the same signature text of two keys is two entries', () => {
      const cache = new ReplayCache(10, 10);
      expect(cache.admit('K', 'same', T0 + WINDOW_MS, T0)).toBe('first');
      expect(cache.admit('L', 'same', T0 + WINDOW_MS, T0)).toBe('first');
    });

    it("tells when a full share has room again: its earliest signature's expiry", () => {
      const cache = new ReplayCache(10, 2);
      cache.admit('K', 'late', T0 + WINDOW_MS, T0);
      cache.admit('K', 'early', T0 + 60_000, T0);
      expect(cache.roomAt('K')).toBe(T0 + 60_000);
      expect(cache.roomAt('NOBODY')).toBeUndefined();
    });
  });
});

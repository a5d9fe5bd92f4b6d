import { ReplayCache } from './replay-cache';

const T0 = 1_700_000_000_000;
const WINDOW_MS = 15 * 60_000;

describe('ReplayCache', () => {
  it('admits a signature once and refuses it again while it is valid', () => {
    const cache = new ReplayCache(10);
    expect(cache.admit('sig-a', T0 + WINDOW_MS, T0)).toBe('first');
    expect(cache.admit('sig-a', T0 + WINDOW_MS, T0 + 1000)).toBe('replayed');
    expect(cache.admit('sig-a', T0 + WINDOW_MS, T0 + WINDOW_MS)).toBe('replayed');
    expect(cache.admit('sig-b', T0 + WINDOW_MS, T0 + 1000)).toBe('first');
  });

  it('forgets a signature once it has expired (the verifier refuses its date by then anyway)', () => {
    const cache = new ReplayCache(10);
    cache.admit('sig-a', T0 + WINDOW_MS, T0);
    expect(cache.admit('sig-a', T0 + 2 * WINDOW_MS, T0 + WINDOW_MS + 1)).toBe('first');
  });

  it('evicts expired entries, so that its size follows the traffic of the last window only', () => {
    const cache = new ReplayCache(1000);
    for (let i = 0; i < 500; i += 1) cache.admit(`old-${i}`, T0 + WINDOW_MS, T0);
    expect(cache.size).toBe(500);
    cache.admit('new', T0 + 3 * WINDOW_MS, T0 + 2 * WINDOW_MS);
    expect(cache.size).toBe(1);
  });

  it('answers full, and does not forget what it holds, when every entry is still valid', () => {
    const cache = new ReplayCache(3);
    for (const signature of ['a', 'b', 'c']) expect(cache.admit(signature, T0 + WINDOW_MS, T0)).toBe('first');
    expect(cache.admit('d', T0 + WINDOW_MS, T0 + 5000)).toBe('full');
    expect(cache.size).toBe(3);
    for (const signature of ['a', 'b', 'c']) expect(cache.admit(signature, T0 + WINDOW_MS, T0 + 5000)).toBe('replayed');
  });

  it('makes room again once entries expire', () => {
    const cache = new ReplayCache(2);
    cache.admit('a', T0 + 1000, T0);
    cache.admit('b', T0 + WINDOW_MS, T0);
    expect(cache.admit('c', T0 + WINDOW_MS, T0 + 500)).toBe('full');
    expect(cache.admit('c', T0 + WINDOW_MS, T0 + 2000)).toBe('first');
    expect(cache.admit('b', T0 + WINDOW_MS, T0 + 2000)).toBe('replayed');
  });

  it('sweeps at most once per interval, so a full cache under attack costs no walk per call', () => {
    const cache = new ReplayCache(2, 10_000);
    cache.admit('a', T0 + 1000, T0);
    cache.admit('b', T0 + WINDOW_MS, T0);
    // 'a' expired at T0 + 1000, but the last sweep was at T0: the next is due at T0 + 10 s.
    expect(cache.admit('c', T0 + WINDOW_MS, T0 + 5000)).toBe('full');
    expect(cache.admit('c', T0 + WINDOW_MS, T0 + 10_000)).toBe('first');
  });
});

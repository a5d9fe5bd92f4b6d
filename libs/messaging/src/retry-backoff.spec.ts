import { DEFAULT_RETRY_BACKOFF, retryDelayMs } from './retry-backoff';

const lowest = () => 0;
const highest = () => 0.999999;

describe('retryDelayMs', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [6, 32000],
    [7, 60000],
    [500, 60000],
  ])('after delivery %i waits between half of %i ms and all of it by default', (deliveryCount, ceiling) => {
    expect(retryDelayMs(deliveryCount, DEFAULT_RETRY_BACKOFF, lowest)).toBe(ceiling / 2);
    expect(retryDelayMs(deliveryCount, DEFAULT_RETRY_BACKOFF, highest)).toBe(ceiling);
  });

  it('grows exponentially: each ceiling doubles the one before until the cap', () => {
    const backoff = { initialMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((count) => retryDelayMs(count, backoff, highest))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3, 4, 5, 6].map((count) => retryDelayMs(count, backoff, lowest))).toEqual([50, 100, 200, 400, 500, 500]);
  });

  it('never exceeds the cap, however many deliveries and whatever the random source says', () => {
    const backoff = { initialMs: 100, maxMs: 300 };
    for (const count of [3, 10, 31, 1000, Number.MAX_SAFE_INTEGER]) {
      for (const random of [lowest, () => 0.5, highest, () => 7]) {
        expect(retryDelayMs(count, backoff, random)).toBeLessThanOrEqual(300);
        expect(retryDelayMs(count, backoff, random)).toBeGreaterThanOrEqual(150);
      }
    }
  });

  it('spreads the delays of one delivery over [ceiling / 2, ceiling] with the random source', () => {
    const backoff = { initialMs: 1000, maxMs: 60000 };
    expect(retryDelayMs(3, backoff, () => 0.5)).toBe(3000);
    expect(retryDelayMs(3, backoff, () => 0.25)).toBe(2500);

    let seed = 42;
    const seeded = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const delays = Array.from({ length: 500 }, () => retryDelayMs(3, backoff, seeded));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(2000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(4000);
    // Jitter, not a constant: the delays cover both halves of the range.
    expect(delays.some((delay) => delay < 2500)).toBe(true);
    expect(delays.some((delay) => delay > 3500)).toBe(true);
  });

  it('uses Math.random when no source is given, within the same bounds', () => {
    const delays = Array.from({ length: 200 }, () => retryDelayMs(2, { initialMs: 1000, maxMs: 60000 }));
    expect(delays.every((delay) => delay >= 1000 && delay <= 2000 && Number.isInteger(delay))).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it('treats a nonsensical delivery count as the first', () => {
    expect(retryDelayMs(0, { initialMs: 100, maxMs: 300 }, highest)).toBe(100);
    expect(retryDelayMs(-3, { initialMs: 100, maxMs: 300 }, lowest)).toBe(50);
  });
});

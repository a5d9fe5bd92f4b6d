import { TABLE_RETRY_BACKOFF, retryDelayMs } from './failure-backoff';

const policy = { baseMs: 1000, capMs: 60000 };

describe('retryDelayMs', () => {
  it('grows exponentially from the base', () => {
    const highest = (failures: number) => retryDelayMs(failures, policy, () => 1);
    expect([1, 2, 3, 4, 5].map(highest)).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('is capped', () => {
    expect(retryDelayMs(7, policy, () => 1)).toBe(60000);
    expect(retryDelayMs(1000, policy, () => 1)).toBe(60000);
  });

  it('jitters within [half, whole] of the exponential delay', () => {
    expect(retryDelayMs(3, policy, () => 0)).toBe(2000);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(3000);
    for (let i = 0; i < 200; i += 1) {
      const delay = retryDelayMs(4, policy);
      expect(delay).toBeGreaterThanOrEqual(4000);
      expect(delay).toBeLessThanOrEqual(8000);
    }
  });

  it('spreads tables that failed together', () => {
    const delays = new Set(Array.from({ length: 20 }, () => retryDelayMs(5, TABLE_RETRY_BACKOFF)));
    expect(delays.size).toBeGreaterThan(1);
  });
});

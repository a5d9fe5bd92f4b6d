import { DEFAULT_RETRY_BACKOFF, retryDelayMs } from './retry-backoff';

describe('retryDelayMs', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [6, 32000],
    [7, 60000],
    [500, 60000],
  ])('after delivery %i waits %i ms by default', (deliveryCount, expected) => {
    expect(retryDelayMs(deliveryCount, DEFAULT_RETRY_BACKOFF)).toBe(expected);
  });

  it('follows a custom backoff and its cap', () => {
    expect([1, 2, 3, 4].map((count) => retryDelayMs(count, { initialMs: 100, maxMs: 300 }))).toEqual([100, 200, 300, 300]);
  });

  it('treats a nonsensical delivery count as the first', () => {
    expect(retryDelayMs(0, { initialMs: 100, maxMs: 300 })).toBe(100);
  });
});

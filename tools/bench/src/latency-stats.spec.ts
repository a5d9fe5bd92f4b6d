import { latencyStats, percentile } from './latency-stats';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, index) => index + 1);

  it('picks the value at rank ceil(p/100 * n)', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([1, 2, 3], 50)).toBe(2);
    expect(percentile([7], 99)).toBe(7);
  });

  it('is NaN without values', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('latencyStats', () => {
  it('sorts its input and reports count, percentiles, max and mean', () => {
    expect(latencyStats([0.4, 0.1, 5, 0.2, 0.3])).toEqual({ count: 5, p50: 0.3, p95: 5, p99: 5, max: 5, mean: 1.2 });
  });

  it('reports NaN figures for no probes rather than zeros', () => {
    const stats = latencyStats([]);
    expect(stats.count).toBe(0);
    expect(stats.p99).toBeNaN();
    expect(stats.max).toBeNaN();
  });
});

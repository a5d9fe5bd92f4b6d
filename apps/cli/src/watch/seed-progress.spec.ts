import { formatCount, formatDuration, formatPercent, formatRate } from './format-numbers';
import { seedProgress } from './seed-progress';

describe('seedProgress', () => {
  it('takes the rate over the time the seed has been in flight, and the ETA from the rows left', () => {
    expect(seedProgress({ rowsSeeded: 30_000, rowsEstimated: 120_000, inFlightSeconds: 60 })).toEqual({
      fraction: 0.25,
      rowsSeeded: 30_000,
      rowsEstimated: 120_000,
      rowsPerSecond: 500,
      etaSeconds: 180,
    });
  });

  it('has no rate before the first row or without work in flight, and no fraction without an estimate', () => {
    expect(seedProgress({ rowsSeeded: 0, rowsEstimated: 10, inFlightSeconds: 5 })).toMatchObject({ fraction: 0, rowsPerSecond: null, etaSeconds: null });
    expect(seedProgress({ rowsSeeded: 10, rowsEstimated: 10, inFlightSeconds: null })).toMatchObject({ rowsPerSecond: null });
    expect(seedProgress({ rowsSeeded: 10, rowsEstimated: 0, inFlightSeconds: 5 })).toMatchObject({ fraction: null, rowsPerSecond: 2, etaSeconds: null });
  });

  it('never goes past 100 % when the estimate falls short', () => {
    expect(seedProgress({ rowsSeeded: 150, rowsEstimated: 100, inFlightSeconds: 10 })).toMatchObject({ fraction: 1, etaSeconds: 0 });
  });
});

describe('number formats', () => {
  it('formats counts, rates, durations and percents', () => {
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatRate(2.25)).toBe('2.3 rows/s');
    expect(formatRate(1_500.4)).toBe('1,500 rows/s');
    expect([0, 0.2, 45, 60, 125, 3599, 3600, 11_220, 86_400 * 2 + 3600 * 4].map(formatDuration)).toEqual([
      '0s',
      '1s',
      '45s',
      '1m00s',
      '2m05s',
      '59m59s',
      '1h00m',
      '3h07m',
      '2d04h',
    ]);
    expect(formatPercent(0.999)).toBe('99%');
    expect(formatPercent(1)).toBe('100%');
  });
});

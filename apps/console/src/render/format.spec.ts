import { formatAgo, formatCount, formatDuration, formatLag, formatRate, formatTick, percent } from './format.js';

describe('format', () => {
  it('keeps the ticks of a small axis distinct, and large ones whole', () => {
    expect([0, 0.01, 0.02, 0.4, 1.5, 2].map(formatTick)).toEqual(['0', '0.01', '0.02', '0.4', '1.5', '2']);
    expect(formatTick(75000)).toBe('75,000');
    expect(formatTick(12.6)).toBe('13');
  });

  it.each([
    [0, '0 s'],
    [59.4, '59 s'],
    [60, '1 min'],
    [185, '3 min 5 s'],
    [7800, '2 h 10 min'],
    [3 * 86400 + 4 * 3600, '3 d 4 h'],
    [-1, '—'],
    [Number.NaN, '—'],
  ])('duration %p is %p', (seconds, text) => expect(formatDuration(seconds)).toBe(text));

  it('formats counts, rates, lag, ages and percentages', () => {
    expect(formatCount(1234567.4)).toBe('1,234,567');
    expect(formatRate(12.34)).toBe('12.3 rows/s');
    expect(formatRate(4321.2)).toBe('4,321 rows/s');
    expect(formatLag(undefined)).toBe('—');
    expect(formatLag(4)).toBe('4 s');
    expect(formatAgo('2026-11-23T10:00:00Z', new Date('2026-11-23T10:01:30Z'))).toBe('1 min 30 s ago');
    expect(formatAgo('not a time', new Date())).toBe('not a time');
    expect([percent(5, 10), percent(20, 10), percent(1, 0)]).toEqual([50, 100, 0]);
  });
});

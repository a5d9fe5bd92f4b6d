import { metricsWindow } from './metrics-window';

const NOW = new Date('2026-11-25T10:30:45.123Z');

describe('metricsWindow', () => {
  it('covers the last hour in one-minute steps by default, the current minute included', () => {
    expect(metricsWindow({}, NOW)).toEqual({ since: new Date('2026-11-25T09:31:00.000Z'), sinceMinutes: 60, stepMinutes: 1 });
  });

  it('chooses the smallest step that keeps a week within 1440 points', () => {
    expect(metricsWindow({ sinceMinutes: 10080 }, NOW)).toMatchObject({ sinceMinutes: 10080, stepMinutes: 7 });
    expect(metricsWindow({ sinceMinutes: 1441 }, NOW)).toMatchObject({ stepMinutes: 2 });
  });

  it('keeps a step the caller chose when it is large enough', () => {
    expect(metricsWindow({ sinceMinutes: 120, stepMinutes: 15 }, NOW)).toMatchObject({ sinceMinutes: 120, stepMinutes: 15 });
  });

  it('refuses a step that would answer more than 1440 points, naming the field and the smallest step', () => {
    expect(metricsWindow({ sinceMinutes: 10080, stepMinutes: 1 }, NOW)).toEqual({
      problem: '{StepMinutes}: invalid value 1. Must be at least 7 for {SinceMinutes} 10080 (at most 1440 points a table)',
    });
  });
});

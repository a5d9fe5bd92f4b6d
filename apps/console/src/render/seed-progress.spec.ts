import { SeedProgressTracker, seedProgress } from './seed-progress.js';
import type { DescribedTable } from '../api/wire-types.js';

const table = (phase: DescribedTable['phase'], rowsSeeded: number, extra: object = {}) => ({ name: '[public].[big]', phase, rowsSeeded, rowsEstimated: 1000, ...extra });

describe('seed progress', () => {
  it('measures the rate between samples and the ETA to the estimate', () => {
    const tracker = new SeedProgressTracker();
    expect(tracker.observe(table('Seeding', 100), 0)).toMatchObject({ rowsCopied: 100, percent: 10, rate: null, etaSeconds: null });
    expect(tracker.observe(table('Seeding', 300), 2000)).toMatchObject({ rowsCopied: 300, percent: 30, rate: 100, etaSeconds: 7 });
  });

  it('falls back to the rows copied since the work began before two samples differ', () => {
    const progress = seedProgress({ rowsSeeded: 500, rowsEstimated: 1000, workStartedAt: '2026-11-23T10:00:00.000Z' }, [], Date.parse('2026-11-23T10:00:10.000Z'));
    expect(progress).toMatchObject({ rate: 50, etaSeconds: 10 });
  });

  it('keeps the bar full and gives no ETA once the copy passes the estimate', () => {
    expect(seedProgress({ rowsSeeded: 1500, rowsEstimated: 1000 }, [{ at: 0, rows: 1000 }, { at: 1000, rows: 1500 }], 1000)).toMatchObject({ percent: 100, rate: 500, etaSeconds: null });
  });

  it('shows no bar outside Seeding and Reseeding, and starts over when a new seed begins', () => {
    const tracker = new SeedProgressTracker();
    expect(tracker.observe(table('Tracking', 1000), 0)).toBeNull();
    tracker.observe(table('Reseeding', 800), 0);
    expect(tracker.observe(table('Reseeding', 10), 1000)).toMatchObject({ rowsCopied: 10, rate: null });
  });
});

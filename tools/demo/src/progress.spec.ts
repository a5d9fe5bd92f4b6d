import type { TableStatus } from '@svc/contracts';
import { failedTable, progressLine, seedingFinished, textTable } from './progress';

function table(name: string, phase: TableStatus['phase'], rowsSeeded = 0, rowsEstimated = 0): TableStatus {
  return { name, phase, rowsSeeded, rowsEstimated, lastVersion: null, lagSeconds: null, lastError: phase === 'Error' ? 'boom' : null };
}

describe('seedingFinished', () => {
  it('needs every expected table, each Tracking or Untracked', () => {
    expect(seedingFinished([table('[public].[a]', 'Tracking'), table('[public].[b]', 'Untracked')], 2)).toBe(true);
    expect(seedingFinished([table('[public].[a]', 'Tracking')], 2)).toBe(false);
    expect(seedingFinished([table('[public].[a]', 'Tracking'), table('[public].[b]', 'Seeding')], 2)).toBe(false);
    expect(seedingFinished([], 0)).toBe(true);
  });
});

describe('failedTable', () => {
  it('finds a table in phase Error', () => {
    expect(failedTable([table('[public].[a]', 'Tracking'), table('[public].[b]', 'Error')])?.name).toBe('[public].[b]');
    expect(failedTable([table('[public].[a]', 'Reseeding')])).toBeUndefined();
  });
});

describe('progressLine', () => {
  it('shows seconds and each table (by name) with phase and rows seeded/estimated', () => {
    expect(progressLine(12400, [table('[sales].[x]', 'Pending', 0, 80), table('[public].[y]', 'Seeding', 10, 40)])).toBe(
      '  12s  [public].[y] Seeding 10/40 · [sales].[x] Pending 0/80',
    );
  });

  it('says when no table is known yet', () => {
    expect(progressLine(0, [])).toContain('waiting for the service to discover');
  });
});

describe('textTable', () => {
  it('pads columns to the widest cell', () => {
    expect(textTable(['a', 'bb'], [['xxx', 'y']])).toBe(['a    bb', '---  --', 'xxx  y'].join('\n'));
  });
});

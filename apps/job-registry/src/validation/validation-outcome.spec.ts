import type { ValidationResultReport } from '@svc/contracts';
import { mismatchAlert, outcomeOfFailure, outcomeOfResult } from './validation-outcome';

const result = (overrides: Partial<ValidationResultReport> = {}): ValidationResultReport => ({
  kind: 'result',
  sourceVersion: '812',
  rowsCompared: 3000,
  rowsEstimated: 3000,
  missingKeys: 0,
  extraKeys: 0,
  differentKeys: 0,
  unsettledKeys: 0,
  differingKeys: [],
  note: null,
  wholeTableEqual: null,
  ...overrides,
});

describe('validation outcomes', () => {
  it('is Validated when no key differs, whatever stayed unsettled', () => {
    expect(outcomeOfResult(result({ unsettledKeys: 3 }))).toMatchObject({ state: 'Validated', unsettledKeys: 3, reason: null });
  });

  it('is Mismatched when a key differs, keeping at most the keys shown', () => {
    const keys = Array.from({ length: 30 }, (_, index) => ({ key: { id: String(index) }, difference: 'missing' as const }));
    const outcome = outcomeOfResult(result({ missingKeys: 30, differingKeys: keys }));
    expect(outcome.state).toBe('Mismatched');
    expect(outcome.differingKeys).toHaveLength(20);
  });

  it('judges a table without a key by its whole-table checksum', () => {
    expect(outcomeOfResult(result({ wholeTableEqual: true })).state).toBe('Validated');
    expect(outcomeOfResult(result({ wholeTableEqual: false, note: 'no primary key, so compared as a whole' }))).toMatchObject({ state: 'Mismatched', reason: 'no primary key, so compared as a whole' });
  });

  it('is Skipped when the engine cannot validate, Failed otherwise', () => {
    expect(outcomeOfFailure({ kind: 'failed', reason: 'this source engine cannot validate yet', unsupported: true }).state).toBe('Skipped');
    expect(outcomeOfFailure({ kind: 'failed', reason: 'Source: authentication failed', unsupported: false }).state).toBe('Failed');
  });

  it('alerts with counts and kinds, never a key', () => {
    const outcome = outcomeOfResult(result({ missingKeys: 1, differentKeys: 2, differingKeys: [{ key: { id: 'secret-looking-key' }, difference: 'missing' }] }));
    const message = mismatchAlert('[public].[items]', 'v-1', outcome);
    expect(message).toBe('validation v-1: [public].[items] does not match its source (keys differ: 1 missing from the warehouse, 2 with different values); DescribeReplicationValidation names the first differing keys');
    expect(message).not.toContain('secret-looking-key');
  });

  it('judges a repair by the comparison after it: Repaired when nothing differs, Mismatched with the count otherwise, Repaired when reseeded', () => {
    expect(outcomeOfResult(result({ repair: { keysApplied: 7, reseed: null } }))).toMatchObject({ state: 'Repaired', reason: '7 key(s) applied again through a change cycle, then compared equal' });
    expect(outcomeOfResult(result({ differentKeys: 2, repair: { keysApplied: 7, reseed: null } }))).toMatchObject({ state: 'Mismatched', reason: '2 key(s) still differ after 7 were applied again' });
    expect(outcomeOfResult(result({ missingKeys: 20000, repair: { keysApplied: 0, reseed: 'validation found 20000 or more differing keys' } }))).toMatchObject({
      state: 'Repaired',
      reason: 'reseeded: validation found 20000 or more differing keys; a validation of it starts by itself once the reseed has completed',
    });
  });
});

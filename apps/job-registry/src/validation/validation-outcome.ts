import { VALIDATION_MAX_KEYS_SHOWN, type ValidationFailedReport, type ValidationResultReport } from '@svc/contracts';
import type { ValidationOutcome } from '@svc/registry-store';

/** A table's state and counts from its worker's result: Validated when nothing differs, Mismatched otherwise. */
export function outcomeOfResult(report: ValidationResultReport): ValidationOutcome {
  const mismatched = report.missingKeys + report.extraKeys + report.differentKeys;
  const differs = report.wholeTableEqual === null ? mismatched > 0 : !report.wholeTableEqual;
  const verdict: Pick<ValidationOutcome, 'state' | 'reason'> = { state: differs ? 'Mismatched' : 'Validated', reason: report.note };
  const { state, reason } = report.repair ? repairVerdict(report.repair, differs, mismatched) : verdict;
  return {
    state,
    reason,
    sourceVersion: report.sourceVersion,
    rowsCompared: report.rowsCompared,
    rowsEstimated: report.rowsEstimated,
    missingKeys: report.missingKeys,
    extraKeys: report.extraKeys,
    differentKeys: report.differentKeys,
    unsettledKeys: report.unsettledKeys,
    differingKeys: report.differingKeys.slice(0, VALIDATION_MAX_KEYS_SHOWN),
  };
}

/** A repair's outcome: Repaired when nothing differs after it (or the table is reseeded), Mismatched with why otherwise. */
function repairVerdict(repair: NonNullable<ValidationResultReport['repair']>, differs: boolean, mismatched: number): Pick<ValidationOutcome, 'state' | 'reason'> {
  if (repair.reseed !== null) return { state: 'Repaired', reason: `reseeded: ${repair.reseed}; a validation of it starts by itself once the reseed has completed` };
  if (differs) return { state: 'Mismatched', reason: `${mismatched} key(s) still differ after ${repair.keysApplied} were applied again` };
  return { state: 'Repaired', reason: repair.keysApplied === 0 ? 'nothing differed any more when compared again' : `${repair.keysApplied} key(s) applied again through a change cycle, then compared equal` };
}

/** A comparison that could not run: Skipped when the engine cannot validate, Failed otherwise. */
export function outcomeOfFailure(report: ValidationFailedReport): ValidationOutcome {
  return failedOutcome(report.unsupported ? 'Skipped' : 'Failed', report.reason);
}

export function failedOutcome(state: 'Failed' | 'Skipped', reason: string): ValidationOutcome {
  return {
    state,
    reason,
    sourceVersion: null,
    rowsCompared: 0,
    rowsEstimated: null,
    missingKeys: 0,
    extraKeys: 0,
    differentKeys: 0,
    unsettledKeys: 0,
    differingKeys: [],
  };
}

/** The Validation alert's words for a Mismatched table: counts and kinds, never a key or a value. */
export function mismatchAlert(tableName: string, validationId: string, outcome: ValidationOutcome): string {
  const kinds = [
    [outcome.missingKeys, 'missing from the warehouse'],
    [outcome.extraKeys, 'extra in the warehouse'],
    [outcome.differentKeys, 'with different values'],
  ]
    .filter(([count]) => Number(count) > 0)
    .map(([count, words]) => `${count} ${words}`);
  const what = kinds.length > 0 ? `keys differ: ${kinds.join(', ')}` : (outcome.reason ?? 'its rows differ from the source');
  return `validation ${validationId}: ${tableName} does not match its source (${what}); DescribeReplicationValidation names the first differing keys`;
}

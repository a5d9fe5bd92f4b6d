import { FINAL_VALIDATION_STATES, type ValidationState } from '@svc/contracts/browser';
import type { DescribedValidation, DifferingKeyShown, ValidatedTable } from '../api/wire-types.js';
import { formatCount } from './format.js';
import { seedProgress, type SeedProgress } from './seed-progress.js';

/** States in which a table is being compared or repaired: the panel keeps refreshing while one is. */
export function isLiveState(state: ValidationState): boolean {
  return !FINAL_VALIDATION_STATES.includes(state);
}

export function validationIsLive(described: DescribedValidation): boolean {
  return described.tables.some((table) => isLiveState(table.state));
}

/** The tables RepairReplication can take from this validation. */
export function mismatchedTableNames(described: DescribedValidation): string[] {
  return described.tables.filter((table) => table.state === 'Mismatched').map((table) => table.name);
}

/** A value that reads unambiguously without quotes: no blanks, separators or quotes, and not the word NULL. */
const BARE_VALUE = /^[A-Za-z0-9_.:+-]+$/;

/**
 * `id=42` or `region="eu west", id=7`: a key's columns as validation compares them. A value is quoted (JSON
 * escapes) unless it is a plain token, so that a trailing blank, an empty string and NULL stay told apart.
 */
export function formatKey(columns: DifferingKeyShown['key']): string {
  return columns.map((column) => `${column.name}=${keyValueText(column.value)}`).join(', ');
}

function keyValueText(value: string | undefined): string {
  if (value === undefined) return 'NULL';
  return BARE_VALUE.test(value) && value !== 'NULL' ? value : JSON.stringify(value);
}

/** The bar of a table being compared, as a seed's (rows compared of the source's estimate, rate and ETA); null when none is running. */
export function validationProgress(table: ValidatedTable, now: Date): SeedProgress | null {
  if ((table.state !== 'Running' && table.state !== 'Repairing') || table.rowsEstimated === undefined) return null;
  return seedProgress({ rowsSeeded: table.rowsCompared, rowsEstimated: table.rowsEstimated, ...(table.startedAt !== undefined && { workStartedAt: table.startedAt }) }, [], now.getTime());
}

/** What the progress cell says when no bar is shown. */
export function progressText(table: ValidatedTable): string {
  if (table.state === 'Pending') return 'waiting to start';
  if (table.rowsEstimated === undefined && isLiveState(table.state)) return 'starting…';
  if (table.rowsCompared === 0 && (table.state === 'Skipped' || table.state === 'Failed')) return '—';
  return `${formatCount(table.rowsCompared)} rows compared`;
}

/** Errors that say an object the service creates itself (a control table, its schema) is gone. */
const MISSING_OBJECT_NUMBERS = new Set([
  // Invalid object name (a table, or a table of a schema that is gone).
  208,
  // The specified schema name does not exist or you do not have permission to use it.
  2760,
]);

/** Whether an mssql error says an object (or its schema) does not exist: the database or schema was recreated. */
export function isSqlServerMissingObject(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { number, originalError } = error as { number?: unknown; originalError?: unknown };
  if (typeof number === 'number') return MISSING_OBJECT_NUMBERS.has(number);
  return originalError !== undefined && originalError !== error && isSqlServerMissingObject(originalError);
}

/**
 * What sp_getapplock's negative return codes mean, each raised by the statement that asked for the lock as its
 * own error number (THROW takes 50000 and up), so that the pipeline retries a deadlock and stops on a bad call.
 * "Return code values: >= 0 (success), or < 0 (failure). -1: The lock request timed out. -2: The lock request
 * was canceled. -3: The lock request was chosen as a deadlock victim. -999: Indicates a parameter validation or
 * other call error." (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql)
 */
export interface ApplicationLockRefusal {
  returnCode: number;
  errorNumber: number;
  meaning: string;
  /** Asking again later can succeed. */
  retryable: boolean;
}

export const APPLICATION_LOCK_REFUSALS: readonly ApplicationLockRefusal[] = [
  { returnCode: -1, errorNumber: 51001, meaning: 'the lock request timed out', retryable: true },
  { returnCode: -2, errorNumber: 51002, meaning: 'the lock request was canceled', retryable: true },
  { returnCode: -3, errorNumber: 51003, meaning: 'the lock request was chosen as a deadlock victim', retryable: true },
  { returnCode: -999, errorNumber: 51999, meaning: 'parameter validation or other call error', retryable: false },
];

/** A negative return code the documentation does not name (none today): not retried. */
export const APPLICATION_LOCK_OTHER_REFUSAL = 51000;

/**
 * T-SQL that raises the refusal of `returnVariable` (an int holding sp_getapplock's return value), if any.
 * Messages are N'' literals without quotes in them.
 */
export function raiseApplicationLockRefusalSql(returnVariable: string, what: string): string {
  const known = APPLICATION_LOCK_REFUSALS.map(
    (refusal) => `IF ${returnVariable} = ${refusal.returnCode} THROW ${refusal.errorNumber}, N'${what} was not granted: ${refusal.meaning} (sp_getapplock ${refusal.returnCode})', 1;`,
  );
  return [...known, `IF ${returnVariable} < 0 THROW ${APPLICATION_LOCK_OTHER_REFUSAL}, N'${what} was not granted', 1;`].join('\n');
}

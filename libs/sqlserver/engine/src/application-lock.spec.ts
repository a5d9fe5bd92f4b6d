import { stagingSql } from '@svc/sqlserver/staging';
import { sqlServerErrorKind } from './sql-server-errors';

/**
 * A double of the staging lock statement's tail as SQL Server runs it: sp_getapplock has returned `returnCode`
 * into @granted and the IF … THROW lines run in order. THROW raises its error_number as the error's number
 * ("error_number ... must be greater than or equal to 50000", https://learn.microsoft.com/sql/t-sql/language-elements/throw-transact-sql)
 * and ends the batch, so the first matching line wins.
 */
function runLockStatement(sql: string, returnCode: number): void {
  for (const line of sql.split('\n')) {
    const match = /^IF @granted (=|<) (-?\d+) THROW (\d+), N?'((?:[^']|'')*)', \d+;?$/.exec(line.trim());
    if (!match) continue;
    const bound = Number(match[2]);
    const fires = match[1] === '=' ? returnCode === bound : returnCode < bound;
    if (fires) throw Object.assign(new Error(match[4]), { number: Number(match[3]), code: 'EREQUEST' });
  }
}

/**
 * sp_getapplock's return codes: "0: The lock was successfully granted synchronously. 1: The lock was granted
 * successfully after waiting for other incompatible locks to be released. -1: The lock request timed out.
 * -2: The lock request was canceled. -3: The lock request was chosen as a deadlock victim. -999: Indicates a
 * parameter validation or other call error." (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql)
 */
describe('the staging lock refused by sp_getapplock', () => {
  it.each([0, 1])('goes on when sp_getapplock returns %i', (returnCode) => {
    expect(() => runLockStatement(stagingSql.APPLICATION_LOCK_SQL, returnCode)).not.toThrow();
  });

  it.each([
    [-3, 'a deadlock victim', 'transient'],
    [-1, 'a timeout', 'transient'],
    [-2, 'a cancelled request', 'transient'],
    [-999, 'a parameter or call error', 'statement-failed'],
  ])('raises %i (%s) as an error the pipeline classifies %s', (returnCode, _meaning, kind) => {
    let raised: unknown;
    try {
      runLockStatement(stagingSql.APPLICATION_LOCK_SQL, returnCode);
    } catch (error) {
      raised = error;
    }
    expect(raised).toBeInstanceOf(Error);
    expect((raised as Error).message).toContain(`sp_getapplock ${returnCode}`);
    expect(sqlServerErrorKind(raised)).toBe(kind);
  });
});

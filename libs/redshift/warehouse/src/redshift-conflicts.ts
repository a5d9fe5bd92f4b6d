/*
 * A transaction that failed because of another one's concurrent work, and succeeds when run again. Redshift runs
 * SERIALIZABLE or SNAPSHOT isolation, SNAPSHOT the default of clusters and workgroups created since May 2024
 * (https://aws.amazon.com/about-aws/whats-new/2024/05/amazon-redshift-snapshot-isolation-provisioned-clusters). The
 * failure AWS documents is "ERROR:1023 DETAIL: Serializable isolation violation on table in Redshift"
 * (https://docs.aws.amazon.com/redshift/latest/dg/c_serial_isolation-serializable-isolation-troubleshooting.html),
 * psql's rendering of the message `1023` with the words as its DETAIL; it documents no other wording for snapshot
 * isolation, whose write conflicts PostgreSQL reports as "could not serialize access due to concurrent update"
 * (SQLSTATE 40001). Each is recognised in the message or the detail, whatever the SQLSTATE (Redshift answers many of
 * its own errors as XX000).
 */
const CONFLICT_WORDS = /\b1023\b|serializable isolation violation|could not serialize access/i;
const SERIALIZATION_FAILURE = '40001';
/** A catalog row another session just wrote (unique violation), a duplicate schema, a duplicate table. */
const CREATION_RACE_STATES = new Set(['23505', '42P06', '42P07']);

export function isSerializationConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, detail } = error as { code?: unknown; message?: unknown; detail?: unknown };
  if (code === SERIALIZATION_FAILURE) return true;
  return [message, detail].some((words) => typeof words === 'string' && CONFLICT_WORDS.test(words));
}

/** The failure of a session that made the same schema or table as another at the same moment: run it again. */
export function lostCreationRace(error: unknown): boolean {
  return CREATION_RACE_STATES.has(String((error as { code?: unknown } | null)?.code)) || isSerializationConflict(error);
}

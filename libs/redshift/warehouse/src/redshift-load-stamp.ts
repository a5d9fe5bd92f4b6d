import type { RedshiftLayout } from './redshift-layout';
import { loadTime, type SqlDialect } from './redshift-sql';
import { TableControlKinds, qualifiedTableControl } from './redshift-table-control';

/*
 * The time a load stamps its rows with (valid_from, valid_to, the update timestamp): one value per load, taken by the
 * load's first statement after the LOCK of the table's control table (a group's, after the LOCKs of all its tables), and
 * later than the stamp of every load of the table before it. A load's transaction starts before it waits for the lock, so SYSDATE alone ("the start date and time for
 * the current transaction", https://docs.aws.amazon.com/redshift/latest/dg/r_SYSDATE.html) could lie before the stamp
 * of the load it waited for, whose version it then closes before that version began. GETDATE() alone is after the lock
 * ("the start date or time of the current statement, even when it is within a transaction block",
 * https://docs.aws.amazon.com/redshift/latest/dg/r_GETDATE.html) but in whole seconds. So the stamp is the greatest of
 * SYSDATE, GETDATE() and the table's last stamp plus a microsecond, kept in the control table as its `clock` row
 * ("NULL values in the list are ignored", https://docs.aws.amazon.com/redshift/latest/dg/r_GREATEST_LEAST.html: a
 * table without one yet). Every session is in UTC (redshift-client.ts), so the stamp is UTC.
 */

const CLOCK = `'${TableControlKinds.clock}'`;
/** TO_CHAR's YYYY-MM-DD HH24:MI:SS.US: microseconds, as SYSDATE has them. */
const STAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

/** The load's stamp as text, the load's first statement after its LOCK. */
export function loadStampSql(layout: RedshiftLayout, dialect: SqlDialect): string {
  return `SELECT TO_CHAR(GREATEST(${loadTime(dialect)}, GETDATE(), MAX(recorded_at) + INTERVAL '1 microsecond'), 'YYYY-MM-DD HH24:MI:SS.US') AS stamp
FROM ${qualifiedTableControl(layout)} WHERE kind = ${CLOCK}`;
}

/** The stamp the server answered, as the literal the load's statements use. */
export function stampLiteral(text: unknown): string {
  if (typeof text !== 'string' || !STAMP_TEXT.test(text)) throw new Error(`the warehouse answered ${JSON.stringify(text)} for the load's time`);
  return `CAST('${text}' AS TIMESTAMP)`;
}

/** The table's clock moved to the load's stamp: an UPDATE, then the INSERT of a table that had no clock (none updated). */
export function advanceClockSql(layout: RedshiftLayout, stamp: string): [update: string, insert: string] {
  const table = qualifiedTableControl(layout);
  return [`UPDATE ${table} SET recorded_at = ${stamp} WHERE kind = ${CLOCK}`, `INSERT INTO ${table} (kind, subject, recorded_at) VALUES (${CLOCK}, '', ${stamp})`];
}

import { DOUBLE_SCHEMA } from './redshift-on-postgres-collation';

/*
 * Transactions and clock of the test hook's Redshift (redshift-on-postgres.ts), as AWS documents them.
 *
 * Isolation: a Redshift database runs SNAPSHOT or SERIALIZABLE isolation, SNAPSHOT unless its owner chose otherwise:
 * "Amazon Redshift is making snapshot isolation as the default for provisioned clusters when you create a new cluster
 * or restore a cluster from a snapshot ... You can change the isolation level for your database using CREATE DATABASE
 * or ALTER DATABASE commands" (https://aws.amazon.com/about-aws/whats-new/2024/05/amazon-redshift-snapshot-isolation-provisioned-clusters);
 * Serverless had it before. The double's sessions run PostgreSQL's REPEATABLE READ, its snapshot isolation, unless the
 * database's default_transaction_isolation is 'serializable' (a test's `ALTER DATABASE … SET
 * default_transaction_isolation`, standing for Redshift's `ALTER DATABASE … ISOLATION LEVEL SERIALIZABLE`).
 *
 * Conflicts: "The SNAPSHOT ISOLATION option will allow higher concurrency, where concurrent modifications to different
 * rows in the same table would complete successfully", while under SERIALIZABLE "a transaction could fail if the result
 * could not be mapped to a serial order of the concurrently running transactions"
 * (https://aws.amazon.com/about-aws/whats-new/2022/05/amazon-redshift-snapshot-isolation-level-support-concurrent-transactions).
 * The failure Redshift documents is "ERROR:1023 DETAIL: Serializable isolation violation on table in Redshift"
 * (https://docs.aws.amazon.com/redshift/latest/dg/c_serial_isolation-serializable-isolation-troubleshooting.html):
 * psql's rendering of an error whose message is `1023` and whose detail names the violation. PostgreSQL's
 * serialization failures (SQLSTATE 40001, at either level) reach the caller in that form, as an internal error
 * (XX000): AWS documents no other wording or SQLSTATE for either level.
 *
 * Clock: GETDATE() "returns the current date and time in the current session time zone (UTC by default). It returns
 * the start date or time of the current statement, even when it is within a transaction block", whole seconds in its
 * example (https://docs.aws.amazon.com/redshift/latest/dg/r_GETDATE.html). SYSDATE, the transaction's start in the
 * session time zone, is spelled LOCALTIMESTAMP on the double (redshift-sql.ts, loadTime).
 */

/** GETDATE() in the double's schema, made under the double's setup lock (redshift-on-postgres.ts). */
export const DOUBLE_CLOCK_SETUP_SQL = `DO $$
BEGIN
  IF to_regprocedure('${DOUBLE_SCHEMA}.getdate()') IS NULL THEN
    CREATE FUNCTION ${DOUBLE_SCHEMA}.getdate() RETURNS timestamp LANGUAGE sql STABLE
      AS 'SELECT pg_catalog.date_trunc(''second'', pg_catalog.statement_timestamp())::timestamp';
  END IF;
END $$`;

const SERIALIZATION_FAILURE = '40001';

interface QueryResultRows {
  rows: { default_transaction_isolation?: unknown }[];
}

/** Sets the session's isolation as the database's Redshift would run it; `run` sends one statement on the session. */
export async function isolateAsRedshift(run: (text: string) => Promise<QueryResultRows>): Promise<void> {
  const shown = await run('SHOW default_transaction_isolation');
  if (shown.rows[0]?.default_transaction_isolation === 'serializable') return;
  await run(`SET default_transaction_isolation TO 'repeatable read'`);
}

/** A PostgreSQL serialization failure as Redshift reports one; any other error as it is. */
export function asRedshiftError(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== SERIALIZATION_FAILURE) return error;
  const words = error instanceof Error ? error.message : String(error);
  return Object.assign(new Error('1023'), { code: 'XX000', severity: 'ERROR', detail: `Serializable isolation violation on table in Redshift (PostgreSQL: ${words})` });
}

/** The arguments of a pg query call and what it returned, with its failures reported as Redshift reports them. */
export function withRedshiftErrors(args: readonly unknown[]): unknown[] {
  return args.map((arg) => (typeof arg === 'function' ? (error: unknown, ...results: unknown[]) => (arg as (...values: unknown[]) => unknown)(error ? asRedshiftError(error) : error, ...results) : arg));
}

export function redshiftErrorsOf<T>(result: T): T {
  if (result instanceof Promise) {
    return result.catch((error: unknown) => {
      throw asRedshiftError(error);
    }) as T;
  }
  return result;
}

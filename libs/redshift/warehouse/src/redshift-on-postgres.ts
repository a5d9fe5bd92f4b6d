import { Client } from 'pg';
import { CREATE_CASE_INSENSITIVE_COLLATION, DOUBLE_SCHEMA, translateCollations } from './redshift-on-postgres-collation';
import { sqlTokens } from './redshift-on-postgres-tokens';
import { DOUBLE_CLOCK_SETUP_SQL, isolateAsRedshift, redshiftErrorsOf, withRedshiftErrors } from './redshift-on-postgres-isolation';

/**
 * The test hook's Redshift (SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES=1, dialect 'postgres'): a PostgreSQL session made to
 * behave as Redshift where the warehouse's SQL depends on it, so that a statement relying on PostgreSQL's behaviour
 * fails a test here instead of at a user's cluster. Never used against a Redshift.
 *
 * - Names: "ASCII letters in standard and delimited identifiers are case-insensitive and are folded to lowercase in
 *   the database" while enable_case_sensitive_identifier is off, its default
 *   (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html,
 *   https://docs.aws.amazon.com/redshift/latest/dg/r_enable_case_sensitive_identifier.html). PostgreSQL keeps the
 *   case of a quoted name, so every statement's double-quoted identifiers are lower-cased before PostgreSQL reads
 *   it (foldQuotedIdentifiers): the catalog then holds the names Redshift would hold. Values (parameters, literals)
 *   are left as they are, as Redshift leaves them: a catalog lookup by a mixed-case name finds nothing.
 * - Text comparison: "trailing spaces in VARCHAR and CHAR values are treated as semantically insignificant when
 *   values are compared" (https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html). The session's
 *   search_path puts a schema before pg_catalog whose `=` and `<>` on text compare the values without their trailing
 *   blanks; PostgreSQL takes the operator found first in the path when two have the same argument types. The values
 *   themselves keep their blanks, as Redshift's VARCHAR does.
 * - Collation: the database is case-insensitive, as one created `COLLATE CASE_INSENSITIVE` is: every CHAR and VARCHAR
 *   column compares 'john' equal to 'JOHN' unless declared `COLLATE case_sensitive`, and `COLLATE(x, 'case_sensitive')`
 *   compares byte for byte (redshift-on-postgres-collation.ts).
 * - Transactions and clock: snapshot isolation unless the database chose serializable, serialization failures reported
 *   as Redshift's error 1023, GETDATE() the statement's start in whole seconds (redshift-on-postgres-isolation.ts).
 */

/** Serialises the creation of the double's schema among the sessions of one database (advisory locks are per database). */
const SETUP_LOCK_KEY = 0x5245_4453;

const DOUBLE_SETUP_SQL = `DO $$
BEGIN
  IF to_regnamespace('${DOUBLE_SCHEMA}') IS NULL THEN
    CREATE SCHEMA ${DOUBLE_SCHEMA};
    CREATE FUNCTION ${DOUBLE_SCHEMA}.text_eq(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE
      AS 'SELECT pg_catalog.rtrim(a, '' '') OPERATOR(pg_catalog.=) pg_catalog.rtrim(b, '' '')';
    CREATE FUNCTION ${DOUBLE_SCHEMA}.text_ne(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE
      AS 'SELECT pg_catalog.rtrim(a, '' '') OPERATOR(pg_catalog.<>) pg_catalog.rtrim(b, '' '')';
    CREATE OPERATOR ${DOUBLE_SCHEMA}.= (LEFTARG = text, RIGHTARG = text, FUNCTION = ${DOUBLE_SCHEMA}.text_eq, COMMUTATOR = OPERATOR(${DOUBLE_SCHEMA}.=), NEGATOR = OPERATOR(${DOUBLE_SCHEMA}.<>));
    CREATE OPERATOR ${DOUBLE_SCHEMA}.<> (LEFTARG = text, RIGHTARG = text, FUNCTION = ${DOUBLE_SCHEMA}.text_ne, COMMUTATOR = OPERATOR(${DOUBLE_SCHEMA}.<>), NEGATOR = OPERATOR(${DOUBLE_SCHEMA}.=));
  END IF;
  -- Redshift's functions that validation's checksums call and PostgreSQL lacks (redshift-checksums.ts), for base 16 and 'hex' only.
  IF to_regprocedure('${DOUBLE_SCHEMA}.strtol(text,integer)') IS NULL THEN
    CREATE FUNCTION ${DOUBLE_SCHEMA}.strtol(num text, base integer) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS 'SELECT CASE WHEN base = 16 THEN (''x'' || lpad(num, 16, ''0''))::bit(64)::bigint END';
  END IF;
  -- The double keeps a VARBYTE column as its hex text (redshift-sql.ts, columnType): FROM_VARBYTE(…, 'hex') is that text.
  IF to_regprocedure('${DOUBLE_SCHEMA}.from_varbyte(text,text)') IS NULL THEN
    CREATE FUNCTION ${DOUBLE_SCHEMA}.from_varbyte(bytes text, format text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS 'SELECT CASE WHEN format = ''hex'' THEN lower(bytes) END';
  END IF;
  -- TO_VARBYTE(…, 'hex') is the VARBYTE of hex text: in the double, that text in the files' lower case (redshift-file-rows.ts).
  IF to_regprocedure('${DOUBLE_SCHEMA}.to_varbyte(text,text)') IS NULL THEN
    CREATE FUNCTION ${DOUBLE_SCHEMA}.to_varbyte(string text, format text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS 'SELECT CASE WHEN format = ''hex'' THEN lower(string) END';
  END IF;
  -- The database's case-insensitive collation (redshift-on-postgres-collation.ts).
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_collation WHERE collnamespace = '${DOUBLE_SCHEMA}'::regnamespace AND collname = 'case_insensitive') THEN
    ${CREATE_CASE_INSENSITIVE_COLLATION};
  END IF;
  -- REPLACE matches characters as they are: it is not among the operations that "support applicable collation semantics"
  -- in a case-insensitive database (r_CREATE_DATABASE.html, "Database collation"). PostgreSQL 15's replace refuses a
  -- nondeterministic collation ("not supported for substring searches").
  IF to_regprocedure('${DOUBLE_SCHEMA}.replace(text,text,text)') IS NULL THEN
    CREATE FUNCTION ${DOUBLE_SCHEMA}.replace(string text, search text, replacement text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS 'SELECT pg_catalog.replace(string COLLATE "C", search COLLATE "C", replacement COLLATE "C")';
  END IF;
END $$`;

/** public first, so that tables and GETDATE() are found and created there as before; the double's operators before pg_catalog's. */
const DOUBLE_SEARCH_PATH = `SET search_path TO public, ${DOUBLE_SCHEMA}, pg_catalog`;

/** Redshift's fold, written here apart from the connector's own (catalogName), so that the double does not share its defects. */
const foldAsciiLetters = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * The statement with the ASCII letters of every double-quoted identifier lower-cased, as Redshift folds them; string
 * literals (standard and E'…'), dollar-quoted text and comments are left as they are.
 */
export function foldQuotedIdentifiers(sql: string): string {
  return sqlTokens(sql)
    .map((token) => (token.kind === 'identifier' ? foldAsciiLetters(token.text) : token.text))
    .join('');
}

/** A statement as Redshift would read it, in PostgreSQL's words: names folded, collations translated. */
const asRedshiftReadsIt = (sql: string) => translateCollations(foldQuotedIdentifiers(sql));

type QueryArgument = string | { text?: unknown; submit?: unknown };

/** A statement as pg's Client.query takes it (text, config object or a submittable such as COPY FROM STDIN), as Redshift would read it. */
function redshiftQuery<T extends QueryArgument>(query: T): T {
  if (typeof query === 'string') return asRedshiftReadsIt(query) as T;
  if (typeof query.text !== 'string') return query;
  if (typeof query.submit === 'function') {
    // A submittable reads its own `text` when pg submits it: translate it in place.
    query.text = asRedshiftReadsIt(query.text);
    return query;
  }
  return Object.assign({}, query, { text: asRedshiftReadsIt(query.text) });
}

/** The pool's Client for the hook: each connection gets the double's operators and search_path before its first statement. */
export class RedshiftOnPostgresClient extends Client {
  override connect(): Promise<Client>;
  override connect(callback: (error: Error | null, client?: Client) => void): void;
  override connect(callback?: (error: Error | null, client?: Client) => void): Promise<Client> | void {
    const ready = super.connect().then(async (): Promise<Client> => {
      await this.behaveAsRedshift();
      return this;
    });
    if (callback === undefined) return ready;
    ready.then(
      (client) => callback(null, client),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }

  override query(...args: unknown[]): never {
    const [query, ...rest] = args;
    const call = super.query.bind(this) as (...callArgs: unknown[]) => never;
    let translated: unknown;
    try {
      translated = query === null || query === undefined ? query : redshiftQuery(query as QueryArgument);
    } catch (thrown) {
      // A statement the double cannot read fails as the server would fail it: through the callback or the promise.
      const error = thrown instanceof Error ? thrown : new Error(String(thrown));
      const callback = rest.find((arg): arg is (error: Error) => void => typeof arg === 'function');
      if (callback === undefined) return Promise.reject(error) as never;
      process.nextTick(() => callback(error));
      return undefined as never;
    }
    return redshiftErrorsOf(call(translated, ...withRedshiftErrors(rest)));
  }

  private async behaveAsRedshift(): Promise<void> {
    const run = (text: string) => super.query(text);
    try {
      await run('BEGIN');
      await run(`SELECT pg_advisory_xact_lock(${SETUP_LOCK_KEY})`);
      await run(DOUBLE_SETUP_SQL);
      await run(DOUBLE_CLOCK_SETUP_SQL);
      await run('COMMIT');
      await run(DOUBLE_SEARCH_PATH);
      await isolateAsRedshift(run);
    } catch (error) {
      await this.end().catch(() => undefined);
      throw error;
    }
  }
}

import { Client } from 'pg';

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
 */
export const DOUBLE_SCHEMA = 'svc_redshift_double';

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
END $$`;

/** public first, so that tables and GETDATE() are found and created there as before; the double's operators before pg_catalog's. */
const DOUBLE_SEARCH_PATH = `SET search_path TO public, ${DOUBLE_SCHEMA}, pg_catalog`;

/** Redshift's fold, written here apart from the connector's own (catalogName), so that the double does not share its defects. */
const foldAsciiLetters = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

const isNameCharacter = (character: string | undefined) => character !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(character);

/** The end (exclusive) of a quoted run starting at `start` with `quote`, doubled quotes inside it; `backslashes` for E'…'. */
function endOfQuoted(sql: string, start: number, quote: string, backslashes: boolean): number {
  let at = start + 1;
  while (at < sql.length) {
    const character = sql[at];
    if (backslashes && character === '\\') at += 2;
    else if (character === quote && sql[at + 1] === quote) at += 2;
    else if (character === quote) return at + 1;
    else at += 1;
  }
  return sql.length;
}

function endOfBlockComment(sql: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    if (sql.startsWith('/*', at)) {
      depth += 1;
      at += 2;
    } else if (sql.startsWith('*/', at)) {
      depth -= 1;
      at += 2;
      if (depth === 0) return at;
    } else at += 1;
  }
  return sql.length;
}

/** `$tag$…$tag$` starting at `start`, or null when the `$` there opens no dollar quote (a parameter such as $1). */
function endOfDollarQuoted(sql: string, start: number): number | null {
  const opening = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(start));
  if (opening === null) return null;
  const closing = sql.indexOf(opening[0], start + opening[0].length);
  return closing < 0 ? sql.length : closing + opening[0].length;
}

/**
 * The statement with the ASCII letters of every double-quoted identifier lower-cased, as Redshift folds them; string
 * literals (standard and E'…'), dollar-quoted text and comments are left as they are.
 */
export function foldQuotedIdentifiers(sql: string): string {
  let folded = '';
  let at = 0;
  while (at < sql.length) {
    const character = sql[at] ?? '';
    let end: number | null = null;
    if (character === '"') {
      end = endOfQuoted(sql, at, '"', false);
      folded += foldAsciiLetters(sql.slice(at, end));
      at = end;
      continue;
    }
    if (character === "'") {
      const escaped = (sql[at - 1] === 'E' || sql[at - 1] === 'e') && !isNameCharacter(sql[at - 2]);
      end = endOfQuoted(sql, at, "'", escaped);
    } else if (sql.startsWith('--', at)) {
      const newline = sql.indexOf('\n', at);
      end = newline < 0 ? sql.length : newline;
    } else if (sql.startsWith('/*', at)) {
      end = endOfBlockComment(sql, at);
    } else if (character === '$' && !isNameCharacter(sql[at - 1])) {
      end = endOfDollarQuoted(sql, at);
    }
    if (end === null) {
      folded += character;
      at += 1;
    } else {
      folded += sql.slice(at, end);
      at = end;
    }
  }
  return folded;
}

type QueryArgument = string | { text?: unknown; submit?: unknown };

/** A statement as pg's Client.query takes it (text, config object or a submittable such as COPY FROM STDIN), with its identifiers folded. */
function foldedQuery<T extends QueryArgument>(query: T): T {
  if (typeof query === 'string') return foldQuotedIdentifiers(query) as T;
  if (typeof query.text !== 'string') return query;
  if (typeof query.submit === 'function') {
    // A submittable reads its own `text` when pg submits it: fold it in place.
    query.text = foldQuotedIdentifiers(query.text);
    return query;
  }
  return Object.assign({}, query, { text: foldQuotedIdentifiers(query.text) });
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
    return call(query === null || query === undefined ? query : foldedQuery(query as QueryArgument), ...rest);
  }

  private async behaveAsRedshift(): Promise<void> {
    const run = (text: string) => super.query(text);
    try {
      await run('BEGIN');
      await run(`SELECT pg_advisory_xact_lock(${SETUP_LOCK_KEY})`);
      await run(DOUBLE_SETUP_SQL);
      await run('COMMIT');
      await run(DOUBLE_SEARCH_PATH);
    } catch (error) {
      await this.end().catch(() => undefined);
      throw error;
    }
  }
}

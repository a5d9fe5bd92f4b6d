import {
  closingParenthesis,
  commaSeparated,
  isSymbol,
  isWord,
  nextSignificant,
  previousSignificant,
  sqlTokens,
  textOf,
  type SqlToken,
} from './redshift-on-postgres-tokens';

/**
 * The Redshift-on-PostgreSQL double's database is case-insensitive, as a database created `COLLATE CASE_INSENSITIVE`
 * is: "The COLLATE clause specifies the default collation for all CHAR and VARCHAR columns in the database. If
 * CASE_INSENSITIVE is specified, all CHAR or VARCHAR columns use case-insensitive collation"
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_CREATE_DATABASE.html, "Database collation"), and a column's own
 * `COLLATE CASE_SENSITIVE | COLLATE CASE_INSENSITIVE` overrides it
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_CREATE_TABLE_NEW.html), as `COLLATE(string, 'case_sensitive' | 'cs'
 * | 'case_insensitive' | 'ci')` overrides an expression's (https://docs.aws.amazon.com/redshift/latest/dg/r_COLLATE.html).
 *
 * PostgreSQL cannot make a nondeterministic collation its database default, so the double gives it to every CHAR and
 * VARCHAR column its DDL declares without a COLLATE (translateCollations). A form the double cannot map is refused
 * with an error, never passed on.
 */
export const DOUBLE_SCHEMA = 'svc_redshift_double';

/** Case-insensitive equality and order (ICU's secondary strength): 'john' = 'JOHN'. */
export const CASE_INSENSITIVE_COLLATION = `${DOUBLE_SCHEMA}.case_insensitive`;
/** Byte order and equality: Redshift's case-sensitive collation, the default of a database created without COLLATE. */
const CASE_SENSITIVE_COLLATION = '"C"';

export const CREATE_CASE_INSENSITIVE_COLLATION = `CREATE COLLATION ${CASE_INSENSITIVE_COLLATION} (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`;

/** Redshift's collation names ("Amazon Redshift only supports the following values"), as PostgreSQL's collations. */
const COLLATIONS: ReadonlyMap<string, string> = new Map([
  ['case_sensitive', CASE_SENSITIVE_COLLATION],
  ['cs', CASE_SENSITIVE_COLLATION],
  ['case_insensitive', CASE_INSENSITIVE_COLLATION],
  ['ci', CASE_INSENSITIVE_COLLATION],
]);

/**
 * The words that declare a CHAR or VARCHAR column. Not TEXT: the warehouse's DDL for the double declares VARBYTE as
 * `text` (redshift-sql.ts, columnType), and VARBYTE has no collation.
 */
const CHARACTER_TYPES: ReadonlySet<string> = new Set(['varchar', 'char', 'character', 'nchar', 'nvarchar', 'bpchar']);

class UnmappedCollation extends Error {
  constructor(what: string, statement: string) {
    super(`the Redshift double cannot map ${what}: ${statement}`);
    this.name = 'UnmappedCollation';
  }
}

/**
 * The statement with Redshift's collations as PostgreSQL's: `COLLATE(x, 'case_sensitive')` as `((x) COLLATE "C")`,
 * a column's `COLLATE case_insensitive` as the double's collation, and every CHAR and VARCHAR column of CREATE TABLE
 * and ALTER TABLE declared without one given the database's, case-insensitive.
 */
export function translateCollations(sql: string): string {
  const tokens = sqlTokens(sql);
  const statement = new Statement(tokens, sql);
  const first = nextSignificant(tokens, 0);
  if (isWord(tokens[first], 'create')) return statement.createTable(first) ?? statement.translate(0, tokens.length, false);
  if (isWord(tokens[first], 'alter') && isWord(tokens[nextSignificant(tokens, first + 1)], 'table')) return statement.alterTable();
  return statement.translate(0, tokens.length, false);
}

class Statement {
  constructor(
    private readonly tokens: readonly SqlToken[],
    private readonly sql: string,
  ) {}

  /**
   * CREATE [LOCAL] [TEMP] TABLE … (columns and constraints): its columns' collations, and a PRIMARY KEY or UNIQUE
   * constraint on text columns compared byte for byte (uniqueConstraint). Null for another CREATE, or a CREATE TABLE … AS.
   */
  createTable(first: number): string | null {
    const { tokens } = this;
    let at = nextSignificant(tokens, first + 1);
    while (['local', 'temp', 'temporary'].some((word) => isWord(tokens[at], word))) at = nextSignificant(tokens, at + 1);
    if (!isWord(tokens[at], 'table')) return null;
    const open = tokens.findIndex((token, index) => index > at && isSymbol(token, '('));
    if (open < 0 || tokens.slice(at, open).some((token) => isWord(token, 'as'))) return null;
    const close = closingParenthesis(tokens, open);
    const elements = commaSeparated(tokens, open + 1, close);
    const characterColumns = new Set(elements.flatMap(([start, end]) => this.characterColumnName(start, end) ?? []));
    const translated = elements.map(([start, end]) => this.uniqueConstraint(start, end, characterColumns) ?? this.translate(start, end, true));
    return `${this.translate(0, open, false)}(${translated.join(',')})${this.translate(close + 1, tokens.length, false)}`;
  }

  /** ALTER TABLE: ADD COLUMN and ALTER COLUMN … TYPE declare a column's type, which gets the database's collation. */
  alterTable(): string {
    const { tokens } = this;
    const declaresText = tokens.some((token) => token.kind === 'word' && CHARACTER_TYPES.has(token.text.toLowerCase()));
    if (declaresText && tokens.some((token) => isWord(token, 'primary') || isWord(token, 'unique'))) throw new UnmappedCollation('a key constraint on a CHAR or VARCHAR column', this.sql);
    return this.translate(0, tokens.length, true);
  }

  /** tokens[start, end) with their collations translated; `declarations` when CHAR and VARCHAR there declare columns. */
  translate(start: number, end: number, declarations: boolean): string {
    const { tokens } = this;
    let text = '';
    let at = start;
    while (at < end) {
      const token = tokens[at];
      if (isWord(token, 'collate')) {
        const [translated, next] = this.collate(at, end, declarations);
        text += translated;
        at = next;
      } else if (declarations && this.declaresCharacterType(at)) {
        const typeEnd = this.endOfCharacterType(at, end);
        text += textOf(tokens, at, typeEnd);
        if (!isWord(tokens[nextSignificant(tokens, typeEnd)], 'collate')) text += ` COLLATE ${CASE_INSENSITIVE_COLLATION}`;
        at = typeEnd;
      } else {
        text += token?.text ?? '';
        at += 1;
      }
    }
    return text;
  }

  /**
   * `COLLATE(x, 'name')` (the function) at `at`, or in a declaration `COLLATE name` (a column's clause): its translation
   * and the index after it.
   */
  private collate(at: number, end: number, declarations: boolean): [string, number] {
    const { tokens } = this;
    const next = nextSignificant(tokens, at + 1);
    if (isSymbol(tokens[next], '(')) {
      const close = closingParenthesis(tokens, next);
      const [value, name, ...more] = commaSeparated(tokens, next + 1, close);
      const nameTokens = name === undefined ? [] : this.significantTokens(name[0], name[1]);
      const collation = nameTokens.length === 1 && nameTokens[0]?.kind === 'string' ? COLLATIONS.get(nameTokens[0].text.slice(1, -1)) : undefined;
      if (value === undefined || collation === undefined || more.length > 0) throw new UnmappedCollation(`COLLATE(${textOf(tokens, next + 1, close)})`, this.sql);
      return [`((${this.translate(value[0], value[1], false)}) COLLATE ${collation})`, close + 1];
    }
    const name = tokens[next];
    // "Amazon Redshift doesn't support locale-specific or user-defined collation sequences" (c_collation_sequences.html).
    const collation = declarations && next < end && name?.kind === 'word' ? COLLATIONS.get(name.text.toLowerCase()) : undefined;
    if (collation === undefined) throw new UnmappedCollation(`COLLATE ${name?.text ?? ''}`, this.sql);
    return [`COLLATE ${collation}`, next + 1];
  }

  private significantTokens(start: number, end: number): SqlToken[] {
    return this.tokens.slice(start, end).filter((token) => token.kind !== 'space' && token.kind !== 'comment');
  }

  /** A CHAR or VARCHAR type at `at` in a declaration: not a cast (`::varchar`, `CAST(… AS VARCHAR)`). */
  private declaresCharacterType(at: number): boolean {
    const token = this.tokens[at];
    if (token?.kind !== 'word' || !CHARACTER_TYPES.has(token.text.toLowerCase())) return false;
    const before = this.tokens[previousSignificant(this.tokens, at)];
    return !isSymbol(before, '::') && !isWord(before, 'as');
  }

  /** The index after the type at `at`: CHARACTER VARYING, and its length in parentheses. */
  private endOfCharacterType(at: number, end: number): number {
    const { tokens } = this;
    let last = at;
    const next = nextSignificant(tokens, at + 1);
    if (isWord(tokens[next], 'varying') && next < end) last = next;
    const open = nextSignificant(tokens, last + 1);
    if (isSymbol(tokens[open], '(') && open < end) last = closingParenthesis(tokens, open);
    return last + 1;
  }

  /** The name of the column tokens[start, end) declares when its type is CHAR or VARCHAR; null for a constraint or another type. */
  private characterColumnName(start: number, end: number): string | null {
    const { tokens } = this;
    const nameAt = nextSignificant(tokens, start);
    const typeAt = nextSignificant(tokens, nameAt + 1);
    if (nameAt >= end || typeAt >= end || !this.declaresCharacterType(typeAt)) return null;
    const name = columnName(tokens[nameAt]);
    const constrained = tokens.slice(typeAt, end).some((token) => isWord(token, 'primary') || isWord(token, 'unique'));
    if (constrained) throw new UnmappedCollation(`a key constraint on the CHAR or VARCHAR column ${name}`, this.sql);
    return name;
  }

  /**
   * [CONSTRAINT name] PRIMARY KEY (…) or UNIQUE (…) over a CHAR or VARCHAR column, as a constraint that compares text
   * byte for byte; null for any other element. Redshift does not enforce them: "Primary key constraints are
   * informational only. They aren't enforced by the system" (r_CREATE_TABLE_NEW.html). PostgreSQL enforces them under
   * the column's collation, and a case-insensitive one would refuse 'JOHN' next to 'john', which Redshift keeps. The
   * double keeps a byte-wise check, so that a merge that writes a key twice still fails here.
   */
  private uniqueConstraint(start: number, end: number, characterColumns: ReadonlySet<string>): string | null {
    const { tokens } = this;
    let at = nextSignificant(tokens, start);
    let prefix = '';
    if (isWord(tokens[at], 'constraint')) {
      const name = nextSignificant(tokens, at + 1);
      prefix = `${textOf(tokens, at, name + 1)} `;
      at = nextSignificant(tokens, name + 1);
    }
    let open: number;
    if (isWord(tokens[at], 'primary') && isWord(tokens[nextSignificant(tokens, at + 1)], 'key')) open = nextSignificant(tokens, nextSignificant(tokens, at + 1) + 1);
    else if (isWord(tokens[at], 'unique')) open = nextSignificant(tokens, at + 1);
    else return null;
    if (!isSymbol(tokens[open], '(')) return null;
    const close = closingParenthesis(tokens, open);
    const keys = commaSeparated(tokens, open + 1, close).map(([from, to]) => textOf(tokens, from, to).trim());
    if (!keys.some((key) => characterColumns.has(columnName(sqlTokens(key)[0])))) return null;
    if (nextSignificant(tokens, close + 1) < end) throw new UnmappedCollation('a key constraint with options', this.sql);
    const elements = keys.map((key) => `${key}${characterColumns.has(columnName(sqlTokens(key)[0])) ? ` COLLATE ${CASE_SENSITIVE_COLLATION}` : ''} WITH OPERATOR(pg_catalog.=)`);
    return ` ${prefix}EXCLUDE USING btree (${elements.join(', ')})`;
  }
}

/** A column's name as the catalog holds it: a quoted name without its quotes, a bare one lower-cased. */
function columnName(token: SqlToken | undefined): string {
  if (token === undefined) return '';
  return token.kind === 'identifier' ? token.text.slice(1, -1).replace(/""/g, '"') : token.text.toLowerCase();
}

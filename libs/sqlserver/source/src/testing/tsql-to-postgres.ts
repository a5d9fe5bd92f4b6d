import { DISCOVER_COLUMNS_SQL } from '../catalog-sql';
import { SOURCE_INCARNATION_SQL } from '../incarnation';
import { SNAPSHOT_ISOLATION_STATE_SQL, VIEW_CHANGE_TRACKING_PERMISSION_SQL } from '../tracking-sql';

/**
 * The SQL Server source's statements for seeds and change reads, as PostgreSQL statements over the Change Tracking
 * model (change-tracking-on-postgres.ts). Two kinds:
 *   - statements read from the catalog or server properties, which have no PostgreSQL spelling, are recognised by their
 *     exact text and answered from the model (the snapshot isolation state, the incarnation, the column catalog, the
 *     VIEW CHANGE TRACKING check);
 *   - the generated SELECTs (CURRENT_VERSION_SQL, MIN_VALID_VERSION_SQL, snapshotSelectSql, changeWindowSql,
 *     netChangesSql) are rewritten token by token, so that what runs is the source's own statement: [names] become
 *     "names", @parameters $n with the input's type, CHANGETABLE(CHANGES [s].[t], @last) the model's function for the
 *     table, CONVERT(varchar(n), x) CAST(x AS text), the Change Tracking functions and OBJECT_ID the model's.
 * Anything else throws UntranslatedStatementError: a statement the model does not know is never answered silently.
 */
export class UntranslatedStatementError extends Error {
  constructor(detail: string, statement: string) {
    super(`the PostgreSQL Change Tracking double does not translate ${detail}: ${statement.replace(/\s+/g, ' ').slice(0, 160)}`);
    this.name = 'UntranslatedStatementError';
  }
}

export type ParameterType = 'bigint' | 'integer' | 'text';

export interface TsqlInput {
  type: ParameterType;
  value: string | number | null;
}

export interface PostgresStatement {
  text: string;
  values: (string | number | null)[];
}

const SCHEMA = 'ct_model';

/** The catalog row of every column (DISCOVER_COLUMNS_SQL's columns): int and nvarchar(n) only, a BIN2 collation (the model compares keys by code point). */
const CATALOG_SQL = `SELECT n.nspname::text AS table_schema, c.relname::text AS table_name, a.attname::text AS column_name,
  CASE WHEN a.atttypid = 'int4'::regtype THEN 'int' WHEN a.atttypid = 'varchar'::regtype AND a.atttypmod > 0 THEN 'nvarchar'
    ELSE 'not a type of the model: ' || format_type(a.atttypid, a.atttypmod) END AS type_name,
  0 AS is_clr_type,
  CASE WHEN a.atttypid = 'int4'::regtype THEN 4 WHEN a.atttypid = 'varchar'::regtype AND a.atttypmod > 0 THEN 2 * (a.atttypmod - 4) ELSE -1 END AS max_length,
  CASE WHEN a.atttypid = 'int4'::regtype THEN 10 ELSE 0 END AS precision,
  0 AS scale,
  CASE WHEN a.attnotnull THEN 0 ELSE 1 END AS is_nullable,
  CASE WHEN a.atttypid = 'varchar'::regtype THEN 'Latin1_General_100_BIN2' END AS collation_name,
  CASE WHEN a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' THEN 1 ELSE 0 END AS has_default,
  array_position(pk.conkey, a.attnum)::int AS key_ordinal,
  greatest(c.reltuples, 0)::bigint::text AS estimated_rows
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_constraint AS pk ON pk.conrelid = c.oid AND pk.contype = 'p'
WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema', '${SCHEMA}') AND n.nspname NOT LIKE 'pg\\_%'
  AND ($1::text IS NULL OR c.oid = ${SCHEMA}.object_id($1::text))
ORDER BY n.nspname, c.relname, a.attnum`;

/** Statements answered from the model, by their exact text: the PostgreSQL statement and the @parameters of its $1, $2… */
const FIXED: ReadonlyMap<string, { text: string; parameters: readonly string[] }> = new Map([
  [SNAPSHOT_ISOLATION_STATE_SQL, { text: `SELECT snapshot_isolation_state AS state FROM ${SCHEMA}.database_state`, parameters: [] }],
  [SOURCE_INCARNATION_SQL, { text: `SELECT incarnation FROM ${SCHEMA}.database_state`, parameters: [] }],
  [DISCOVER_COLUMNS_SQL, { text: CATALOG_SQL, parameters: ['table'] }],
  // HAS_PERMS_BY_NAME: NULL for a securable it cannot find; the model grants every table.
  [
    VIEW_CHANGE_TRACKING_PERMISSION_SQL,
    { text: `SELECT CASE WHEN ${SCHEMA}.object_id($1::text) IS NULL THEN NULL ELSE 1 END AS may_view_changes, current_user::text AS user_name`, parameters: ['table'] },
  ],
]);

const KEYWORDS: ReadonlySet<string> = new Set([
  'SELECT', 'FROM', 'WHERE', 'AS', 'AND', 'OR', 'NOT', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'IS', 'NULL', 'LEFT', 'JOIN', 'ON',
  'ORDER', 'BY', 'ASC', 'DESC', 'OFFSET', 'ROWS', 'FETCH', 'NEXT', 'ROW', 'ONLY', 'MIN', 'MAX',
]);
const FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['CHANGE_TRACKING_CURRENT_VERSION', `${SCHEMA}.change_tracking_current_version`],
  ['CHANGE_TRACKING_MIN_VALID_VERSION', `${SCHEMA}.change_tracking_min_valid_version`],
  ['OBJECT_ID', `${SCHEMA}.object_id`],
]);
const CONVERT_CLOSER = ' AS text)';
const CHANGETABLE_COLUMNS: ReadonlySet<string> = new Set(['SYS_CHANGE_VERSION', 'SYS_CHANGE_CREATION_VERSION', 'SYS_CHANGE_OPERATION']);

type TokenKind = 'space' | 'bracketed' | 'parameter' | 'string' | 'number' | 'word' | 'symbol';
interface Token {
  kind: TokenKind;
  text: string;
}

const TOKEN_PATTERNS: readonly [TokenKind, RegExp][] = [
  ['space', /\s+/y],
  ['bracketed', /\[(?:[^\]]|\]\])*\]/y],
  ['parameter', /@[A-Za-z_][A-Za-z0-9_]*/y],
  ['string', /'(?:[^']|'')*'/y],
  ['number', /[0-9]+/y],
  ['word', /[A-Za-z_][A-Za-z0-9_]*/y],
  ['symbol', /<=|>=|<>|[(),.*<>=]/y],
];

function tokens(statement: string): Token[] {
  const found: Token[] = [];
  let at = 0;
  while (at < statement.length) {
    const match = TOKEN_PATTERNS.map(([kind, pattern]) => {
      pattern.lastIndex = at;
      const text = pattern.exec(statement)?.[0];
      return text === undefined ? null : { kind, text };
    }).find((token) => token !== null);
    // N'…' literals, +, ;, comments: nothing the read statements use.
    if (!match || (match.kind === 'word' && match.text.toUpperCase() === 'N' && statement[at + 1] === "'")) {
      throw new UntranslatedStatementError(`the text at ${JSON.stringify(statement.slice(at, at + 12))}`, statement);
    }
    found.push(match);
    at += match.text.length;
  }
  return found;
}

/** `[a]]b]` → `"a]b"`. */
function quoted(bracketed: string): string {
  return `"${bracketed.slice(1, -1).replace(/\]\]/g, ']').replace(/"/g, '""')}"`;
}

/** The source's statement as PostgreSQL, its @parameters bound from `inputs`. */
export function translateTsql(statement: string, inputs: ReadonlyMap<string, TsqlInput>): PostgresStatement {
  const fixed = FIXED.get(statement);
  if (fixed) return { text: fixed.text, values: fixed.parameters.map((name) => inputOf(inputs, name, statement).value) };
  return new Rewrite(statement, inputs).run();
}

function inputOf(inputs: ReadonlyMap<string, TsqlInput>, name: string, statement: string): TsqlInput {
  const input = inputs.get(name);
  // SQL Server's error 137.
  if (!input) throw new UntranslatedStatementError(`Must declare the scalar variable "@${name}"`, statement);
  return input;
}

class Rewrite {
  private readonly tokens: Token[];
  private readonly aliases = new Set<string>();
  private readonly parameters: string[] = [];
  private readonly values: (string | number | null)[] = [];
  /** What each open parenthesis closes with. */
  private readonly closers: string[] = [];
  private at = 0;
  private out = '';

  constructor(
    private readonly statement: string,
    private readonly inputs: ReadonlyMap<string, TsqlInput>,
  ) {
    this.tokens = tokens(statement);
    // Column and table aliases: the word after each AS.
    const words = this.tokens.filter((token) => token.kind !== 'space');
    words.forEach((token, index) => {
      const next = words[index + 1];
      if (token.kind === 'word' && token.text.toUpperCase() === 'AS' && next?.kind === 'word') this.aliases.add(next.text);
    });
  }

  run(): PostgresStatement {
    const first = this.tokens.find((token) => token.kind !== 'space');
    if (first?.text.toUpperCase() !== 'SELECT') throw this.refuse('a statement other than a SELECT');
    while (this.at < this.tokens.length) this.step();
    if (this.closers.length > 0) throw this.refuse('unbalanced parentheses');
    return { text: this.out, values: this.values };
  }

  private step(): void {
    const token = this.next();
    switch (token.kind) {
      case 'space':
      case 'string':
      case 'number':
        this.out += token.text;
        return;
      case 'bracketed':
        this.out += quoted(token.text);
        return;
      case 'parameter':
        this.out += this.parameter(token.text);
        return;
      case 'symbol':
        this.symbol(token.text);
        return;
      case 'word':
        this.word(token.text);
        return;
    }
  }

  private symbol(text: string): void {
    // CONVERT's third argument, a style, would change the text: the model has none.
    if (text === ',' && this.closers[this.closers.length - 1] === CONVERT_CLOSER) throw this.refuse('CONVERT with a style');
    if (text === '(') {
      this.closers.push(')');
      this.out += '(';
    } else if (text === ')') {
      const closer = this.closers.pop();
      if (closer === undefined) throw this.refuse('unbalanced parentheses');
      this.out += closer;
    } else this.out += text;
  }

  private word(text: string): void {
    const upper = text.toUpperCase();
    const mapped = FUNCTIONS.get(upper);
    if (mapped !== undefined) {
      this.expect('(');
      this.closers.push(')');
      this.out += `${mapped}(`;
    } else if (upper === 'CONVERT') this.convert();
    else if (upper === 'CHANGETABLE') this.changeTable();
    else if (KEYWORDS.has(upper)) this.out += text;
    else if (CHANGETABLE_COLUMNS.has(upper)) this.out += text.toLowerCase();
    else if (this.aliases.has(text)) this.out += text;
    else throw this.refuse(`the word ${text}`);
  }

  /** CONVERT(varchar(n), x) → CAST(x AS text): int renders as its digits in both. No other type or style. */
  private convert(): void {
    this.expect('(');
    const type = this.take();
    if (type.kind !== 'word' || type.text.toLowerCase() !== 'varchar') throw this.refuse(`CONVERT to ${type.text}`);
    this.expect('(');
    if (this.take().kind !== 'number') throw this.refuse('CONVERT without a length');
    this.expect(')');
    this.expect(',');
    this.closers.push(CONVERT_CLOSER);
    this.out += 'CAST(';
  }

  /** CHANGETABLE(CHANGES [s].[t], @last) → ct_model."CHANGES [s].[t]"(@last): the model's function for that table. */
  private changeTable(): void {
    this.expect('(');
    const changes = this.take();
    if (changes.kind !== 'word' || changes.text.toUpperCase() !== 'CHANGES') throw this.refuse('CHANGETABLE other than CHANGES');
    const schema = this.take();
    this.expect('.');
    const table = this.take();
    if (schema.kind !== 'bracketed' || table.kind !== 'bracketed') throw this.refuse('CHANGETABLE of a table not named [schema].[name]');
    this.expect(',');
    const last = this.take();
    const lastText = last.kind === 'parameter' ? this.parameter(last.text) : last.kind === 'number' ? last.text : null;
    if (lastText === null) throw this.refuse('a last_sync_version other than a variable or a number');
    this.expect(')');
    this.out += `${SCHEMA}."${`CHANGES ${schema.text}.${table.text}`.replace(/"/g, '""')}"(${lastText})`;
  }

  private parameter(text: string): string {
    const name = text.slice(1);
    const input = inputOf(this.inputs, name, this.statement);
    let index = this.parameters.indexOf(name);
    if (index < 0) {
      this.parameters.push(name);
      this.values.push(input.value);
      index = this.parameters.length - 1;
    }
    return `($${index + 1}::${input.type})`;
  }

  /** The next token, white space included (written as it is). */
  private next(): Token {
    const token = this.tokens[this.at];
    if (token === undefined) throw this.refuse('a statement cut short');
    this.at += 1;
    return token;
  }

  /** The next token that is not white space, inside a construct rewritten as a whole. */
  private take(): Token {
    while (this.tokens[this.at]?.kind === 'space') this.at += 1;
    return this.next();
  }

  private expect(symbol: string): void {
    const token = this.take();
    if (token.text !== symbol) throw this.refuse(`${token.text} where ${symbol} was expected`);
  }

  private refuse(detail: string): UntranslatedStatementError {
    return new UntranslatedStatementError(detail, this.statement);
  }
}

import { quoted } from './bracketed-names';
import { CHANGE_TRACKING_MODEL_SCHEMA as SCHEMA } from './change-tracking-model';
import { FIXED_STATEMENTS } from './fixed-statements';
import { translatedDdl } from './ddl-statements';
import { postgresTypeOf } from './tsql-runtime';

/**
 * SQL Server's statements, as the source and staging send them, as PostgreSQL statements over the Change Tracking model
 * (change-tracking-model.ts) and the T-SQL runtime (tsql-runtime.ts). Three kinds:
 *   - statements read from the catalog or server properties, or with IF/ELSE and @@ROWCOUNT, are recognised by their
 *     exact text and answered by a PostgreSQL statement written for them (fixed-statements.ts);
 *   - DDL (CREATE/ALTER TABLE, schemas, the batch's temporary table) is recognised by its form (ddl-statements.ts),
 *     its types mapped to the model's (postgresTypeOf);
 *   - every other SELECT, INSERT … SELECT and DELETE is rewritten token by token, so that what runs is the service's own
 *     statement: [names] become "names", @parameters $n with the input's type, N'…' '…', CONVERT and CAST the runtime's
 *     conversions by target type, TOP (n) a LIMIT, CHANGETABLE(CHANGES [s].[t], @last) the model's function for the
 *     table, COLLATE dropped (the model compares by code point), the functions whose rules differ the runtime's.
 * Anything else throws UntranslatedStatementError: a statement the model does not know is never answered silently.
 */
export class UntranslatedStatementError extends Error {
  constructor(detail: string, statement: string) {
    super(`the PostgreSQL model of SQL Server does not translate ${detail}: ${statement.replace(/\s+/g, ' ').slice(0, 200)}`);
    this.name = 'UntranslatedStatementError';
  }
}

export type ParameterType = 'bigint' | 'integer' | 'text' | 'boolean' | 'timestamp' | 'double precision';

export interface TsqlInput {
  type: ParameterType;
  value: string | number | boolean | Date | null;
}

export interface PostgresStatement {
  /** One statement; several (separated by `;`) only when `values` is empty. */
  text: string;
  values: (string | number | boolean | Date | null)[];
}

/** The statement as PostgreSQL, its @parameters bound from `inputs`. */
export function translateTsql(statement: string, inputs: ReadonlyMap<string, TsqlInput>): PostgresStatement {
  const fixed = FIXED_STATEMENTS.get(statement);
  if (fixed) return { text: fixed.text, values: fixed.parameters.map((name) => inputOf(inputs, name, statement).value) };
  const ddl = translatedDdl(statement, (fragment) => new Rewrite(fragment, inputs, statement).expression());
  if (ddl !== null) return { text: ddl, values: [] };
  return new Rewrite(statement, inputs, statement).run();
}

function inputOf(inputs: ReadonlyMap<string, TsqlInput>, name: string, statement: string): TsqlInput {
  const input = inputs.get(name);
  // SQL Server's error 137.
  if (!input) throw new UntranslatedStatementError(`Must declare the scalar variable "@${name}"`, statement);
  return input;
}

const STATEMENT_HEADS: ReadonlySet<string> = new Set(['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'WITH']);

/** T-SQL functions PostgreSQL has under the same name and rules. */
const SAME_FUNCTIONS: ReadonlySet<string> = new Set([
  'LOWER', 'UPPER', 'LEFT', 'RIGHT', 'REPLACE', 'RTRIM', 'LTRIM', 'NULLIF', 'COALESCE', 'ABS', 'FLOOR', 'CEILING', 'POWER',
  'SUM', 'COUNT', 'MIN', 'MAX', 'AVG', 'NTILE', 'ROW_NUMBER', 'OVER', 'EXISTS', 'IN', 'VALUES', 'AND', 'OR', 'NOT', 'ON', 'WHERE', 'AS', 'FROM', 'SELECT', 'THEN', 'ELSE', 'WHEN', 'IS',
]);
const RENAMED_FUNCTIONS: ReadonlyMap<string, string> = new Map([
  ['CHANGE_TRACKING_CURRENT_VERSION', `${SCHEMA}.change_tracking_current_version`],
  ['CHANGE_TRACKING_MIN_VALID_VERSION', `${SCHEMA}.change_tracking_min_valid_version`],
  ['OBJECT_ID', `${SCHEMA}.object_id`],
  ['HASHBYTES', 'tsql.hashbytes'],
  ['LEN', 'tsql.len'],
  ['CHARINDEX', 'tsql.charindex'],
  ['NCHAR', 'tsql.nchar'],
  ['SUBSTRING', 'substr'],
  ['ISNULL', 'coalesce'],
  ['LOG10', 'log'],
  ['SWITCHOFFSET', 'tsql.switchoffset'],
]);

type TokenKind = 'space' | 'comment' | 'bracketed' | 'parameter' | 'unicode' | 'string' | 'number' | 'temporary' | 'word' | 'symbol';
interface Token {
  kind: TokenKind;
  text: string;
}

const TOKEN_PATTERNS: readonly [TokenKind, RegExp][] = [
  ['space', /\s+/y],
  ['comment', /--[^\n]*/y],
  ['bracketed', /\[(?:[^\]]|\]\])*\]/y],
  ['parameter', /@[A-Za-z_][A-Za-z0-9_]*/y],
  ['unicode', /N'(?:[^']|'')*'/y],
  ['string', /'(?:[^']|'')*'/y],
  ['number', /[0-9]+(?:\.[0-9]+)?/y],
  ['temporary', /#[A-Za-z_][A-Za-z0-9_]*/y],
  ['word', /[A-Za-z_][A-Za-z0-9_]*/y],
  ['symbol', /<=|>=|<>|!=|[(),.*<>=+\-/%;]/y],
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
    if (!match) throw new UntranslatedStatementError(`the text at ${JSON.stringify(statement.slice(at, at + 12))}`, statement);
    found.push(match);
    at += match.text.length;
  }
  return found;
}


/** What a parenthesis opened by a rewritten construct closes with. */
interface Closer {
  /** Written at the closing parenthesis. */
  text: string;
  /** CONVERT: written instead when no style came. */
  withoutStyle?: string;
  kind: 'plain' | 'convert' | 'cast';
  styled?: boolean;
  /** TOP (n) of the query this parenthesis holds: its LIMIT, written before the parenthesis closes. */
  limit?: string;
}

class Rewrite {
  private readonly tokens: Token[];
  private readonly parameters: string[] = [];
  private readonly values: PostgresStatement['values'] = [];
  private readonly closers: Closer[] = [];
  /** The LIMIT of the statement's own query level (TOP outside any parenthesis). */
  private topLimit: string | undefined;
  private at = 0;
  private out = '';
  /** The word before the token being rewritten (undefined after anything else). */
  private previousWord: string | undefined;
  private lastWord: string | undefined;

  constructor(
    text: string,
    private readonly inputs: ReadonlyMap<string, TsqlInput>,
    private readonly statement: string,
  ) {
    // DELETE t FROM x AS t … is PostgreSQL's DELETE FROM x AS t ….
    this.tokens = tokens(text.replace(/^\s*DELETE\s+[A-Za-z_][A-Za-z0-9_]*\s+FROM\b/i, 'DELETE FROM'));
  }

  run(): PostgresStatement {
    const first = this.tokens.find((token) => token.kind !== 'space' && token.kind !== 'comment');
    if (!first || !STATEMENT_HEADS.has(first.text.toUpperCase())) throw this.refuse('a statement other than SELECT, INSERT, UPDATE or DELETE');
    this.expression();
    return { text: this.out, values: this.values };
  }

  /** The whole text rewritten (also a fragment of a DDL statement: a DEFAULT, a column's expression). */
  expression(): string {
    while (this.at < this.tokens.length) this.step();
    if (this.closers.length > 0) throw this.refuse('unbalanced parentheses');
    if (this.topLimit !== undefined) this.out = `${this.out.replace(/;\s*$/, '')} LIMIT ${this.topLimit}`;
    return this.out;
  }

  private step(): void {
    const token = this.next();
    if (token.kind !== 'space' && token.kind !== 'comment') {
      this.previousWord = this.lastWord;
      this.lastWord = token.kind === 'word' ? token.text : undefined;
    }
    switch (token.kind) {
      case 'space':
      case 'comment':
      case 'string':
      case 'number':
        this.out += token.text;
        return;
      case 'unicode':
        this.out += token.text.slice(1);
        return;
      case 'bracketed':
        this.out += quoted(token.text);
        return;
      case 'temporary':
        this.out += `pg_temp."${token.text}"`;
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
    const top = this.closers[this.closers.length - 1];
    if (text === ',' && top?.kind === 'convert' && !top.styled) {
      top.styled = true;
      this.out += ', ';
      return;
    }
    if (text === '(') {
      this.closers.push({ text: ')', kind: 'plain' });
      this.out += '(';
    } else if (text === ')') {
      const closer = this.closers.pop();
      if (closer === undefined) throw this.refuse('unbalanced parentheses');
      if (closer.limit !== undefined) this.out += ` LIMIT ${closer.limit}`;
      this.out += closer.kind === 'convert' && !closer.styled ? (closer.withoutStyle ?? closer.text) : closer.text;
    } else this.out += text;
  }

  private word(text: string): void {
    const upper = text.toUpperCase();
    const opens = this.peek()?.text === '(';
    if (upper === 'CONVERT' && opens) return this.convert();
    if (upper === 'CAST' && opens) return this.cast();
    if (upper === 'CHANGETABLE' && opens) return this.changeTable();
    if (upper === 'DATEADD' && opens) return this.dateAdd();
    if (upper === 'SYSUTCDATETIME' && opens) {
      this.expect('(');
      this.expect(')');
      this.out += "(clock_timestamp() AT TIME ZONE 'UTC')";
      return;
    }
    if (upper === 'TOP') return this.top();
    if (upper === 'TABLESAMPLE') return this.tableSample();
    if (upper === 'COLLATE') {
      // The model compares text by code point whatever the collation says.
      this.take();
      return;
    }
    if (upper === 'AS' && this.closers[this.closers.length - 1]?.kind === 'cast') {
      this.out += `AS ${this.typeName()}`;
      return;
    }
    const renamed = RENAMED_FUNCTIONS.get(upper);
    if (renamed !== undefined && opens) {
      this.out += renamed;
      return;
    }
    // A table alias with its column names (`AS t([index], [name])`) is no function.
    if (opens && !SAME_FUNCTIONS.has(upper) && this.previousWord?.toUpperCase() !== 'AS') throw this.refuse(`the function ${text}`);
    this.out += text;
  }

  /** CONVERT(type, value [, style]) → the runtime's conversion to that type. */
  private convert(): void {
    this.expect('(');
    const { base, size, scale } = this.typeParts();
    this.expect(',');
    const name = base.toLowerCase();
    const style = ', NULL::int)';
    if (['varchar', 'nvarchar', 'char', 'nchar', 'sysname', 'text', 'ntext'].includes(name)) {
      const cut = size !== undefined && size.toLowerCase() !== 'max' ? size : null;
      this.out += cut === null ? 'tsql.to_text(' : 'left(tsql.to_text(';
      const after = cut === null ? '' : `, ${cut})`;
      this.closers.push({ kind: 'convert', text: `)${after}`, withoutStyle: `${style}${after}` });
    } else if (name === 'decimal' || name === 'numeric') {
      this.out += 'CAST(';
      this.closers.push({ kind: 'plain', text: ` AS numeric(${size ?? 18},${scale ?? 0}))` });
    } else if (name === 'datetime2' || name === 'datetimeoffset') {
      this.out += `tsql.to_${name}_${size ?? 7}(`;
      this.closers.push({ kind: 'convert', text: ')', withoutStyle: style });
    } else if (['varbinary', 'binary'].includes(name)) {
      this.out += 'tsql.to_binary(';
      this.closers.push({ kind: 'convert', text: ')', withoutStyle: style });
    } else if (['bigint', 'int', 'smallint', 'bit', 'uniqueidentifier', 'date', 'float'].includes(name)) {
      this.out += `tsql.to_${name}(`;
      this.closers.push({ kind: 'convert', text: ')', withoutStyle: style });
    } else throw this.refuse(`CONVERT to ${base}`);
  }

  private cast(): void {
    this.expect('(');
    this.out += 'CAST(';
    this.closers.push({ kind: 'cast', text: ')' });
  }

  /** A type's words, `name` or `name(n)` or `name(p, s)` or `name(max)`. */
  private typeParts(): { base: string; size?: string; scale?: string } {
    const base = this.take();
    if (base.kind !== 'word') throw this.refuse(`a type named ${base.text}`);
    if (this.peek()?.text !== '(') return { base: base.text };
    this.expect('(');
    const size = this.take();
    let scale: string | undefined;
    if (this.peek()?.text === ',') {
      this.expect(',');
      scale = this.take().text;
    }
    this.expect(')');
    return { base: base.text, size: size.text, ...(scale !== undefined && { scale }) };
  }

  private typeName(): string {
    const { base, size, scale } = this.typeParts();
    const spelled = `${base}${size === undefined ? '' : `(${size}${scale === undefined ? '' : `,${scale}`})`}`;
    const mapped = postgresTypeOf(spelled);
    if (mapped === null) throw this.refuse(`the type ${spelled}`);
    return mapped;
  }

  /** SELECT [DISTINCT] TOP (n) … → … LIMIT n at the end of the query level it opens. */
  private top(): void {
    this.expect('(');
    const count = this.take();
    const countText = count.kind === 'parameter' ? this.parameter(count.text) : count.kind === 'number' ? count.text : null;
    if (countText === null) throw this.refuse('a TOP other than a number or a variable');
    this.expect(')');
    const level = this.closers[this.closers.length - 1];
    if (level === undefined) this.topLimit = countText;
    else level.limit = countText;
  }

  /** TABLESAMPLE [SYSTEM] (n PERCENT) → PostgreSQL's TABLESAMPLE SYSTEM (n): both take each page or not, n percent of them. */
  private tableSample(): void {
    if (this.peek()?.text.toUpperCase() === 'SYSTEM') this.take();
    this.expect('(');
    const percent = this.take();
    if (percent.kind !== 'number') throw this.refuse('a TABLESAMPLE other than a number');
    const unit = this.take();
    if (unit.text.toUpperCase() !== 'PERCENT') throw this.refuse(`TABLESAMPLE in ${unit.text}`);
    this.expect(')');
    this.out += `TABLESAMPLE SYSTEM (${percent.text})`;
  }

  /** DATEADD(MICROSECOND, n, x): the only unit the service's statements add in an expression. */
  private dateAdd(): void {
    this.expect('(');
    const unit = this.take();
    if (unit.text.toUpperCase() !== 'MICROSECOND') throw this.refuse(`DATEADD by ${unit.text}`);
    this.expect(',');
    this.out += 'tsql.dateadd_microseconds(';
    this.closers.push({ kind: 'plain', text: ')' });
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

  private peek(): Token | undefined {
    let at = this.at;
    while (this.tokens[at]?.kind === 'space') at += 1;
    return this.tokens[at];
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

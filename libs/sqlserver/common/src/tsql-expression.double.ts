import { createHash } from 'node:crypto';
import { addMicroseconds, switchOffset, type Clock } from './tsql-time.double';

/**
 * A T-SQL expression evaluator for the expressions column-types.ts generates, with the value rendering
 * Microsoft documents, so that a test sees what SQL Server would return for one value, not the text of the SQL.
 *
 * CAST and CONVERT (https://learn.microsoft.com/en-us/sql/t-sql/functions/cast-and-convert-transact-sql):
 *   - float and real to character data: style 0 (the default) "A maximum of 6 digits. Use in scientific
 *     notation, when appropriate."; 1 "Always 8 digits"; 2 "Always 16 digits"; 3 "Always 17 digits. Use for
 *     lossless conversion. With this style, every distinct float or real value is guaranteed to convert to a
 *     distinct character string." (SQL Server 2016 and later).
 *   - money and smallmoney: style 0 (default) "No commas every three digits to the left of the decimal point,
 *     and two digits to the right of the decimal point" (4235.98); 2 "… four digits to the right" (4235.9819).
 *   - datetime and smalldatetime: style 0 or 100 (default) "mon dd yyyy hh:miAM (or PM)"; 120 "yyyy-mm-dd
 *     hh:mi:ss (24h)"; 121 "yyyy-mm-dd hh:mi:ss.mmm (24h)", the default for time, date, datetime2 and
 *     datetimeoffset; 23 "yyyy-mm-dd".
 *   - binary to character data: style 0 (default) "Translates … binary bytes to ASCII characters. Each
 *     character or byte is converted 1:1."; style 1 writes the bytes as hex with a 0x prefix, style 2 without it.
 *   - uniqueidentifier to character data: its 36 characters xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, hex digits in
 *     upper case (LOWER gives lower case).
 * The date and time types' default string literal formats (their data type pages): time hh:mm:ss[.nnnnnnn],
 * datetime2 YYYY-MM-DD hh:mm:ss[.fractional seconds], datetimeoffset YYYY-MM-DD hh:mm:ss[.nnnnnnn] [{+|-}hh:mm],
 * each with as many fractional digits as its scale and no point at scale 0 (datetimeoffset(0) is 26 characters,
 * datetimeoffset(7) 34). Style 121 is the default of time, date, datetime2 and datetimeoffset.
 * hierarchyid's ToString() is its path (/1/3/); a CLR user-defined type's is whatever its assembly returns.
 * SQL_VARIANT_PROPERTY(v, 'BaseType') names the value's base type; converting a sql_variant to that type
 * gives its value back (https://learn.microsoft.com/en-us/sql/t-sql/data-types/sql-variant-transact-sql).
 * geometry and geography (https://learn.microsoft.com/en-us/sql/t-sql/spatial-geometry/astextzm-geometry-data-type):
 * STAsText() "does not contain any Z (elevation) or M (measure) values carried by the instance"; AsTextZM()
 * returns the WKT "augmented with any Z (elevation) and M (measure) values" (POINT(1 2 3 4): STAsText gives
 * POINT (1 2), AsTextZM POINT (1 2 3 4)). STSrid is the instance's spatial reference id.
 *
 * Validation's checksum expressions (checksum-dialect.ts) need more, each as documented:
 *   - NULL: an arithmetic or string operator or a function given NULL yields NULL; `+` on strings yields NULL when
 *     either side is NULL (CONCAT_NULL_YIELDS_NULL ON, the default and the only setting in future versions:
 *     https://learn.microsoft.com/en-us/sql/t-sql/statements/set-concat-null-yields-null-transact-sql), unlike
 *     CONCAT; a comparison with NULL is not true, so CASE takes no WHEN of it, and a CASE without ELSE whose WHENs all
 *     fail yields NULL (https://learn.microsoft.com/en-us/sql/t-sql/language-elements/case-transact-sql).
 *     COALESCE yields its first non-NULL argument, NULLIF(a, b) NULL when a = b, else a.
 *   - HASHBYTES('MD5', x) hashes x's bytes (https://learn.microsoft.com/en-us/sql/t-sql/functions/hashbytes-transact-sql):
 *     an nvarchar's are UTF-16LE; a varchar's are UTF-8 under a UTF-8 collation (`_UTF8`, SQL Server 2019 and later,
 *     https://learn.microsoft.com/en-us/sql/relational-databases/collations/collation-and-unicode-support, "UTF-8 support"),
 *     and of a code page otherwise, which the double does not model (it throws). `x COLLATE c` gives x the explicit
 *     collation c; CONVERT from one character type to another keeps its input's collation, which an explicit one wins
 *     in `+` and function arguments (https://learn.microsoft.com/en-us/sql/t-sql/statements/collation-precedence-transact-sql).
 *   - REPLACE compares with its input's collation; only binary collations (`_BIN2`, code point by code point) are
 *     modelled. LOWER, RTRIM (trailing spaces, char(32)), LEFT, RIGHT, SUBSTRING(s, start, length) from 1, NCHAR(code).
 *   - ABS, FLOOR (the largest integer not above x, of x's type), LOG10 (base 10; LOG is natural), POWER(x, y) of x's type;
 *     float arithmetic is IEEE double; `%` on integers keeps the dividend's sign; a decimal literal meets a float as a float.
 *   - CONVERT to int or bigint from float truncates ("When you convert ... from float ... to int ... truncated"); from
 *     binary reads its bytes as a big-endian integer; CONVERT(binary(n), 'hex', 2) reads hex digits without 0x; CONVERT
 *     to float from a decimal string is its nearest double. CONVERT(datetime2(n), text, 121) reads
 *     yyyy-mm-dd hh:mi:ss[.fffffff]; converting datetimeoffset to datetime2 "the date and time are copied, the time zone
 *     is truncated"; datetime2 to time keeps the time; to a larger scale the value is unchanged (a smaller one is not
 *     modelled). DATEADD(MICROSECOND, …) and SWITCHOFFSET as tsql-time.double.ts says.
 * Anything else it is asked to evaluate throws, so an expression it does not model fails the test.
 */
export type TsqlValue =
  | { type: 'null' }
  /** What a comparison yields, for CASE WHEN and NULLIF only (T-SQL has no boolean values). */
  | { type: 'truth'; value: boolean }
  /** A character string: nvarchar when `national`, else varchar; `collation` when one was given by COLLATE or kept by CONVERT. */
  | { type: 'text'; text: string; national?: boolean; collation?: string }
  | { type: 'int' | 'bit'; value: number }
  | { type: 'bigint'; value: bigint }
  | { type: 'float' | 'real'; value: number }
  | { type: 'money' | 'smallmoney'; tenThousandths: bigint }
  | { type: 'datetime' | 'smalldatetime' | 'datetime2'; year: number; month: number; day: number; hour: number; minute: number; second: number; fraction: string }
  | { type: 'datetimeoffset'; year: number; month: number; day: number; hour: number; minute: number; second: number; fraction: string; offsetMinutes: number }
  | { type: 'time'; hour: number; minute: number; second: number; fraction: string }
  | { type: 'date'; year: number; month: number; day: number }
  | { type: 'uniqueidentifier'; hex: string }
  | { type: 'clr'; text: string }
  | { type: 'binary' | 'varbinary'; bytes: Buffer }
  | { type: 'decimal'; text: string }
  | { type: 'sql_variant'; base: Exclude<TsqlValue, { type: 'sql_variant' }> }
  | { type: 'geometry' | 'geography'; srid: number; shape: 'POINT' | 'LINESTRING'; points: number[][] };

type Token = { kind: 'string' | 'nstring' | 'number' | 'word' | 'symbol'; text: string };

const TEXT_TYPES = new Set(['varchar', 'nvarchar', 'char', 'nchar', 'sysname']);
const NATIONAL_TYPES = new Set(['nvarchar', 'nchar', 'sysname']);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const NULL: TsqlValue = { type: 'null' };
const COMPARISONS = new Set(['=', '<', '>', '<=', '>=', '<>']);

type Expression = () => TsqlValue;

export function evaluateTsql(expression: string, bindings: Readonly<Record<string, TsqlValue>>): TsqlValue {
  const tokens = tokenize(expression);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const next = (): Token => {
    const token = tokens[at];
    if (!token) throw new Error(`unexpected end of ${expression}`);
    at += 1;
    return token;
  };
  const expect = (text: string): void => {
    const token = next();
    if (token.text.toUpperCase() !== text) throw new Error(`expected ${text}, found ${token.text} in ${expression}`);
  };
  const isWord = (text: string): boolean => peek()?.kind === 'word' && peek()?.text.toUpperCase() === text;
  const isSymbol = (text: string): boolean => peek()?.kind === 'symbol' && peek()?.text === text;

  const parseType = (): string => {
    let type = next().text.toLowerCase();
    if (isSymbol('(')) {
      next();
      const size = [next().text.toLowerCase()];
      if (isSymbol(',')) {
        next();
        size.push(next().text);
      }
      expect(')');
      type += `(${size.join(',')})`;
    }
    return type;
  };

  const parseArguments = (): Expression[] => {
    expect('(');
    const parsed: Expression[] = [];
    if (!isSymbol(')')) {
      parsed.push(parseExpression());
      while (isSymbol(',')) {
        next();
        parsed.push(parseExpression());
      }
    }
    expect(')');
    return parsed;
  };

  // Parsed into closures: a CASE evaluates only the branch it takes, as SQL Server does.
  const parseCase = (): Expression => {
    const subject = isWord('WHEN') ? undefined : parseExpression();
    const branches: [Expression, Expression][] = [];
    while (isWord('WHEN')) {
      next();
      const condition = parseExpression();
      expect('THEN');
      branches.push([condition, parseExpression()]);
    }
    let otherwise: Expression | undefined;
    if (isWord('ELSE')) {
      next();
      otherwise = parseExpression();
    }
    expect('END');
    return () => {
      const value = subject?.();
      const taken = branches.find(([condition]) => (value === undefined ? isTrue(condition()) : equal(value, condition())))?.[1] ?? otherwise;
      return taken ? taken() : NULL;
    };
  };

  const parsePrimary = (): Expression => {
    const token = next();
    if (token.kind === 'string' || token.kind === 'nstring') return () => ({ type: 'text', text: token.text, national: token.kind === 'nstring' });
    if (token.kind === 'number') return () => (token.text.includes('.') ? { type: 'decimal', text: token.text } : { type: 'int', value: Number(token.text) });
    if (token.kind === 'symbol' && token.text === '(') {
      const inner = parseExpression();
      expect(')');
      return inner;
    }
    if (token.kind !== 'word') throw new Error(`unexpected ${token.text} in ${expression}`);
    const word = token.text.toUpperCase();
    if (word === 'CASE') return parseCase();
    if (word === 'NULL') return () => NULL;
    if (word === 'CONVERT') {
      expect('(');
      const type = parseType();
      expect(',');
      const value = parseExpression();
      let style: number | undefined;
      if (isSymbol(',')) {
        next();
        style = Number(next().text);
      }
      expect(')');
      return () => convert(type, value(), style);
    }
    if (word === 'HASHBYTES' || word === 'DATEADD') {
      expect('(');
      const first = next().text.toUpperCase();
      expect(',');
      const rest = [parseExpression()];
      while (isSymbol(',')) {
        next();
        rest.push(parseExpression());
      }
      expect(')');
      return () => special(word, first, rest.map((argument) => argument()));
    }
    const call = FUNCTIONS[word];
    if (call && isSymbol('(')) {
      const parsed = parseArguments();
      return () => call(parsed);
    }
    const bound = bindings[token.text];
    if (!bound) throw new Error(`unknown name ${token.text} in ${expression}`);
    if (!isSymbol('.')) return () => bound;
    next();
    const member = next().text;
    if (isSymbol('(')) {
      expect('(');
      expect(')');
    }
    return () => (bound.type === 'null' ? NULL : memberOf(bound, member));
  };

  const parsePostfix = (): Expression => {
    const value = parsePrimary();
    if (!isWord('COLLATE')) return value;
    next();
    const collation = next().text;
    return () => collated(value(), collation);
  };

  const parseUnary = (): Expression => {
    if (isSymbol('-')) {
      next();
      const operand = parseUnary();
      return () => arithmetic('-', { type: 'int', value: 0 }, operand());
    }
    return parsePostfix();
  };

  const parseBinary = (operators: ReadonlySet<string>, operand: () => Expression): (() => Expression) => () => {
    let left = operand();
    while (peek()?.kind === 'symbol' && operators.has(peek()?.text ?? '')) {
      const operator = next().text;
      const [before, right] = [left, operand()];
      left = () => arithmetic(operator, before(), right());
    }
    return left;
  };
  const parseTerm = parseBinary(new Set(['*', '/', '%']), parseUnary);
  const parseSum = parseBinary(new Set(['+', '-']), parseTerm);

  function parseExpression(): Expression {
    const left = parseSum();
    if (peek()?.kind !== 'symbol' || !COMPARISONS.has(peek()?.text ?? '')) return left;
    const operator = next().text;
    const right = parseSum();
    return () => ({ type: 'truth', value: compare(operator, left(), right()) });
  }

  const parsed = parseExpression();
  if (at !== tokens.length) throw new Error(`unexpected ${tokens[at]?.text ?? ''} in ${expression}`);
  return parsed();
}

function isTrue(condition: TsqlValue): boolean {
  if (condition.type !== 'truth') throw new Error('a searched CASE needs a comparison in each WHEN');
  return condition.value;
}

/** A value's number for arithmetic and comparisons: floats and decimals as doubles, integers as bigints. */
function numberOf(value: TsqlValue): number | bigint {
  if (value.type === 'int' || value.type === 'bit') return BigInt(value.value);
  if (value.type === 'bigint' || value.type === 'float' || value.type === 'real') return value.value;
  if (value.type === 'decimal') return Number(value.text);
  throw new Error(`arithmetic on ${value.type} is not modelled`);
}

const isFloating = (value: TsqlValue) => value.type === 'float' || value.type === 'real' || value.type === 'decimal';

function compare(operator: string, left: TsqlValue, right: TsqlValue): boolean {
  if (left.type === 'null' || right.type === 'null') return false;
  if (left.type === 'text' && right.type === 'text') {
    if (operator !== '=' && operator !== '<>') throw new Error('ordering text is not modelled');
    return equal(left, right) === (operator === '=');
  }
  const [a, b] = [numberOf(left), numberOf(right)];
  const [x, y] = isFloating(left) || isFloating(right) ? [Number(a), Number(b)] : [a, b];
  switch (operator) {
    case '=':
      return x === y;
    case '<>':
      return x !== y;
    case '<':
      return x < y;
    case '>':
      return x > y;
    case '<=':
      return x <= y;
    default:
      return x >= y;
  }
}

function arithmetic(operator: string, left: TsqlValue, right: TsqlValue): TsqlValue {
  if (left.type === 'null' || right.type === 'null') return NULL;
  if (operator === '+' && left.type === 'text' && right.type === 'text') {
    const collation = left.collation ?? right.collation;
    if (left.collation !== undefined && right.collation !== undefined && left.collation !== right.collation) {
      throw new Error(`Cannot resolve the collation conflict between ${left.collation} and ${right.collation}`);
    }
    return { type: 'text', text: left.text + right.text, national: left.national === true || right.national === true, ...(collation !== undefined && { collation }) };
  }
  if (left.type === 'text' || right.type === 'text') throw new Error(`${operator} between ${left.type} and ${right.type} is not modelled`);
  if (isFloating(left) || isFloating(right)) {
    const [x, y] = [Number(numberOf(left)), Number(numberOf(right))];
    const value = operator === '+' ? x + y : operator === '-' ? x - y : operator === '*' ? x * y : operator === '/' ? x / y : undefined;
    if (value === undefined) throw new Error(`${operator} on float is not modelled`);
    if (!Number.isFinite(value)) throw new Error('An invalid floating point operation occurred (or a divide by zero)');
    return { type: 'float', value };
  }
  const [x, y] = [numberOf(left) as bigint, numberOf(right) as bigint];
  if ((operator === '/' || operator === '%') && y === 0n) throw new Error('Divide by zero error encountered');
  const value = integerArithmetic(operator, x, y);
  return left.type === 'bigint' || right.type === 'bigint' ? { type: 'bigint', value } : { type: 'int', value: Number(value) };
}

/** Integer division truncates toward zero and % keeps the dividend's sign, as BigInt's do. */
function integerArithmetic(operator: string, x: bigint, y: bigint): bigint {
  switch (operator) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '%':
      return x % y;
    default:
      throw new Error(`${operator} is not modelled`);
  }
}

function collated(value: TsqlValue, collation: string): TsqlValue {
  if (value.type === 'null') return NULL;
  if (value.type !== 'text') throw new Error(`COLLATE applies to character strings, not ${value.type}`);
  return { ...value, collation };
}

/** Each argument evaluated, NULL in → NULL out (the string and math functions). */
function strict(arity: number, body: (values: Exclude<TsqlValue, { type: 'null' }>[]) => TsqlValue): (parsed: Expression[]) => TsqlValue {
  return (parsed) => {
    if (parsed.length !== arity) throw new Error(`expected ${arity} arguments, got ${parsed.length}`);
    const values = parsed.map((argument) => argument());
    const present = values.filter((value): value is Exclude<TsqlValue, { type: 'null' }> => value.type !== 'null');
    return present.length < values.length ? NULL : body(present);
  };
}

const textFunction = (arity: number, body: (text: string, values: TsqlValue[]) => string) =>
  strict(arity, (values) => {
    const [first] = values;
    if (first?.type !== 'text') throw new Error(`a string function given ${first?.type ?? 'nothing'}`);
    return { ...first, text: body(first.text, values) };
  });

const count = (value: TsqlValue | undefined) => Number(numberOf(value ?? NULL));
const float = (body: (x: number, values: TsqlValue[]) => number) =>
  strict(1, (values) => {
    const [value] = values;
    const result = body(Number(numberOf(value ?? NULL)), values);
    if (!Number.isFinite(result)) throw new Error('An invalid floating point operation occurred');
    return { type: 'float', value: result };
  });

const FUNCTIONS: Readonly<Record<string, (parsed: Expression[]) => TsqlValue>> = {
  LOWER: textFunction(1, (text) => text.toLowerCase()),
  RTRIM: textFunction(1, (text) => text.replace(/ +$/, '')),
  // Lengths in UTF-16 code units, as under a collation without supplementary-character support (the texts cut here are digits).
  LEFT: textFunction(2, (text, values) => text.slice(0, count(values[1]))),
  RIGHT: textFunction(2, (text, values) => text.slice(Math.max(0, text.length - count(values[1])))),
  SUBSTRING: textFunction(3, (text, values) => text.slice(count(values[1]) - 1, count(values[1]) - 1 + count(values[2]))),
  REPLACE: strict(3, ([input, pattern, replacement]) => {
    if (input?.type !== 'text' || pattern?.type !== 'text' || replacement?.type !== 'text') throw new Error('REPLACE of non-text is not modelled');
    if (!/_BIN2($|_)/i.test(input.collation ?? '')) throw new Error(`REPLACE under the collation ${input.collation ?? '(the database default)'} is not modelled: only binary collations`);
    return { ...input, text: input.text.split(pattern.text).join(replacement.text), national: input.national === true || replacement.national === true };
  }),
  NCHAR: strict(1, ([code]) => ({ type: 'text', text: String.fromCodePoint(count(code)), national: true })),
  SQL_VARIANT_PROPERTY: (parsed) => {
    const [variant, property] = parsed.map((argument) => argument());
    if (variant?.type === 'null') return NULL;
    if (variant?.type !== 'sql_variant' || property?.type !== 'text' || property.text !== 'BaseType') throw new Error('only BaseType of a sql_variant is modelled');
    return { type: 'text', text: variant.base.type };
  },
  SWITCHOFFSET: strict(2, ([value, offset]) => {
    const match = offset?.type === 'text' ? /^([+-])(\d{2}):(\d{2})$/.exec(offset.text) : null;
    if (value?.type !== 'datetimeoffset' || !match) throw new Error('SWITCHOFFSET of a datetimeoffset to a +hh:mm offset is modelled only');
    const target = (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
    const { year, month, day, hour, minute, second, fraction } = value;
    return { type: 'datetimeoffset', ...switchOffset({ year, month, day, hour, minute, second, fraction }, value.offsetMinutes, target), offsetMinutes: target };
  }),
  COALESCE: (parsed) => parsed.map((argument) => argument()).find((value) => value.type !== 'null') ?? NULL,
  NULLIF: (parsed) => {
    const [left, right] = parsed.map((argument) => argument());
    if (!left || !right) throw new Error('NULLIF takes two arguments');
    return left.type !== 'null' && compare('=', left, right) ? NULL : left;
  },
  ABS: strict(1, ([value]) => {
    const number = numberOf(value ?? NULL);
    if (typeof number === 'bigint') return value?.type === 'bigint' ? { type: 'bigint', value: number < 0n ? -number : number } : { type: 'int', value: Math.abs(Number(number)) };
    return { type: 'float', value: Math.abs(number) };
  }),
  FLOOR: float((x) => Math.floor(x)),
  LOG10: float((x) => {
    if (x <= 0) throw new Error('An invalid floating point operation occurred');
    return Math.log10(x);
  }),
  POWER: (parsed) =>
    strict(2, ([base, exponent]) => {
      if (base?.type !== 'float') throw new Error('POWER is modelled for a float base only');
      return { type: 'float', value: base.value ** Number(numberOf(exponent ?? NULL)) };
    })(parsed),
};

function special(word: string, first: string, values: TsqlValue[]): TsqlValue {
  switch (word) {
    case 'HASHBYTES': {
      const [input] = values;
      if (first.toUpperCase() !== 'MD5' || input === undefined) throw new Error(`HASHBYTES('${first}') is not modelled`);
      if (input.type === 'null') return NULL;
      return { type: 'varbinary', bytes: createHash('md5').update(bytesOf(input)).digest() };
    }
    case 'DATEADD': {
      const [amount, value] = values;
      if (first !== 'MICROSECOND' || amount === undefined || value === undefined) throw new Error(`DATEADD(${first}) is not modelled`);
      if (amount.type === 'null' || value.type === 'null') return NULL;
      if (value.type !== 'datetime2') throw new Error(`DATEADD on ${value.type} is not modelled`);
      return { type: 'datetime2', ...addMicroseconds(value, Number(numberOf(amount))) };
    }
    default:
      throw new Error(`${word} is not modelled`);
  }
}

/** The bytes HASHBYTES reads of a value. */
function bytesOf(value: TsqlValue): Buffer {
  if (value.type === 'binary' || value.type === 'varbinary') return value.bytes;
  if (value.type !== 'text') throw new Error(`HASHBYTES of ${value.type} is not modelled`);
  if (value.national === true) return Buffer.from(value.text, 'utf16le');
  if (/_UTF8$/i.test(value.collation ?? '')) return Buffer.from(value.text, 'utf8');
  throw new Error(`the bytes of a varchar under ${value.collation ?? 'the database default collation'} (a code page) are not modelled`);
}

/** The text a value renders as. */
export function textOf(value: TsqlValue): string {
  if (value.type !== 'text') throw new Error(`expected text, got ${value.type}`);
  return value.text;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(N?)'((?:[^']|'')*)'|(\d+(?:\.\d+)?)|([A-Za-z_][\w]*|\[[^\]]+\])|(<=|>=|<>|[(),.+\-*\/%=<>]))/y;
  let at = 0;
  while (at < expression.length) {
    if (/^\s*$/.test(expression.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(expression);
    if (!match) throw new Error(`cannot read ${expression.slice(at)}`);
    at = pattern.lastIndex;
    if (match[2] !== undefined) tokens.push({ kind: match[1] === 'N' ? 'nstring' : 'string', text: match[2].replace(/''/g, "'") });
    else if (match[3] !== undefined) tokens.push({ kind: 'number', text: match[3] });
    else if (match[4] !== undefined) tokens.push({ kind: 'word', text: match[4] });
    else tokens.push({ kind: 'symbol', text: match[5] ?? '' });
  }
  return tokens;
}

function equal(left: TsqlValue, right: TsqlValue): boolean {
  if (left.type === 'null' || right.type === 'null') return false;
  // The default collations compare case-insensitively (CASE SQL_VARIANT_PROPERTY(…) WHEN 'float').
  if (left.type === 'text' && right.type === 'text') return left.text.toLowerCase() === right.text.toLowerCase();
  // A bit compared with an int literal (CASE x WHEN 1): the int converts to bit, so both compare as numbers.
  const number = (value: TsqlValue) => (value.type === 'int' || value.type === 'bit' ? value.value : undefined);
  return number(left) !== undefined && number(left) === number(right);
}

function baseName(type: string): string {
  return (/^[a-z_0-9]+/.exec(type)?.[0] ?? type).toLowerCase();
}

function convert(type: string, value: TsqlValue, style: number | undefined): TsqlValue {
  const target = baseName(type);
  if (value.type === 'null') return NULL;
  if (TEXT_TYPES.has(target)) {
    const text = render(value.type === 'sql_variant' ? value.base : value, style);
    // A character input keeps its collation (collation precedence); another gets the database default, left unnamed.
    const collation = value.type === 'text' ? value.collation : undefined;
    return { type: 'text', text, national: NATIONAL_TYPES.has(target), ...(collation !== undefined && { collation }) };
  }
  if (value.type === 'sql_variant') return fromVariant(value.base, type, style);
  switch (target) {
    case 'float':
      return { type: 'float', value: floatOf(value) };
    case 'int':
    case 'bigint': {
      const integer = integerOf(value);
      return target === 'int' ? { type: 'int', value: Number(integer) } : { type: 'bigint', value: integer };
    }
    case 'decimal':
    case 'numeric':
      // An integer into decimal(p, 0) is exact while it fits: decimal(38, 0) holds every bigint (decimal-and-numeric-transact-sql).
      if (style === undefined && (value.type === 'int' || value.type === 'bigint') && /^(decimal|numeric)\(38, ?0\)$/i.test(type.replace(/\s+/g, ' ').trim())) {
        return { type: 'decimal', text: integerOf(value).toString() };
      }
      break;
    case 'binary':
      if (value.type === 'text' && style === 2) return { type: 'binary', bytes: hexBytes(value.text, type) };
      break;
    case 'datetime2':
      if (style === 121 && value.type === 'text') return { type: 'datetime2', ...rescaled(parseStyle121(value.text), scaleOf(type)) };
      if (style === undefined && (value.type === 'datetime2' || value.type === 'datetimeoffset')) {
        const { year, month, day, hour, minute, second, fraction } = value;
        return { type: 'datetime2', ...rescaled({ year, month, day, hour, minute, second, fraction }, scaleOf(type)) };
      }
      break;
    case 'time':
      if (style === undefined && (value.type === 'datetime2' || value.type === 'time')) {
        const { hour, minute, second } = value;
        return { type: 'time', hour, minute, second, fraction: rescaled({ year: 1, month: 1, day: 1, hour, minute, second, fraction: value.fraction }, scaleOf(type)).fraction };
      }
      break;
    default:
      break;
  }
  if (style !== undefined) throw new Error(`a style converting ${value.type} to ${type} is not modelled`);
  if (target === 'varbinary' && (value.type === 'binary' || value.type === 'varbinary')) return { type: 'varbinary', bytes: value.bytes };
  throw new Error(`converting ${value.type} to ${type} is not modelled`);
}

/** A sql_variant converted to its base type gives the value back. */
function fromVariant(base: Exclude<TsqlValue, { type: 'sql_variant' }>, type: string, style: number | undefined): TsqlValue {
  const target = baseName(type);
  if (style !== undefined) throw new Error(`a style converting a sql_variant to ${type} is not modelled`);
  if (target === base.type) return base;
  if (target === 'float' && base.type === 'real') return { type: 'float', value: base.value };
  if (target === 'varbinary' && base.type === 'binary') return { type: 'varbinary', bytes: base.bytes };
  throw new Error(`converting a sql_variant holding ${base.type} to ${type} is not modelled`);
}

function scaleOf(type: string): number {
  return Number(/\((\d+)\)$/.exec(type)?.[1] ?? 7);
}

/** To a larger (or equal) scale: the same value, zeros appended. A smaller one rounds, which is not modelled. */
function rescaled(clock: Clock, scale: number): Clock {
  if (clock.fraction.length > scale && clock.fraction.slice(scale).replace(/0/g, '') !== '') throw new Error(`converting ${clock.fraction} to scale ${scale} rounds, which is not modelled`);
  return { ...clock, fraction: clock.fraction.padEnd(scale, '0').slice(0, scale) };
}

/** yyyy-mm-dd hh:mi:ss[.fffffff] (style 121 read into datetime2). */
function parseStyle121(text: string): Clock {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/.exec(text);
  if (!match) throw new Error(`Conversion failed when converting date and/or time from character string: ${text}`);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second, fraction: match[7] ?? '' };
}

function floatOf(value: TsqlValue): number {
  if (value.type === 'text') {
    if (!/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value.text)) throw new Error(`Error converting data type varchar to float: ${value.text}`);
    return Number(value.text);
  }
  return Number(numberOf(value));
}

/** An integer from a float (truncated toward zero), an integer, a decimal string or binary bytes (big-endian, two's complement). */
function integerOf(value: TsqlValue): bigint {
  if (value.type === 'binary' || value.type === 'varbinary') {
    if (value.bytes.length !== 8) throw new Error('only 8 bytes to bigint is modelled');
    return value.bytes.readBigInt64BE(0);
  }
  if (value.type === 'text') {
    if (!/^\s*[+-]?\d+\s*$/.test(value.text)) throw new Error(`Conversion failed when converting the varchar value '${value.text}' to data type int`);
    return BigInt(value.text.trim());
  }
  const number = numberOf(value);
  return typeof number === 'bigint' ? number : BigInt(Math.trunc(number));
}

/** Style 2: hex digits without 0x, two per byte; binary(n) is padded with zero bytes on the right. */
function hexBytes(hex: string, type: string): Buffer {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`Error converting data type varchar to ${type}: ${hex}`);
  const bytes = Buffer.from(hex, 'hex');
  const length = scaleOf(type);
  if (bytes.length > length) throw new Error(`${hex} does not fit ${type}`);
  return Buffer.concat([bytes, Buffer.alloc(length - bytes.length)]);
}

function render(value: TsqlValue, style: number | undefined): string {
  switch (value.type) {
    case 'null':
    case 'truth':
      throw new Error(`rendering ${value.type} as text is not modelled`);
    case 'text':
    case 'decimal':
      return value.text;
    case 'int':
    case 'bigint':
      return String(value.value);
    case 'bit':
      throw new Error('rendering bit as text is not modelled (the plans compare it with 1 and 0)');
    case 'float':
    case 'real':
      return renderFloat(value.value, style ?? 0);
    case 'money':
    case 'smallmoney':
      return renderMoney(value.tenThousandths, style ?? 0);
    case 'datetime':
    case 'smalldatetime':
    case 'datetime2':
      return renderDateTime(value, style ?? (value.type === 'datetime2' ? 121 : 0));
    case 'datetimeoffset': {
      if (style !== undefined && style !== 121) throw new Error(`style ${style} of datetimeoffset is not modelled`);
      const sign = value.offsetMinutes < 0 ? '-' : '+';
      const offset = Math.abs(value.offsetMinutes);
      return `${year(value.year)}-${two(value.month)}-${two(value.day)} ${clock(value)} ${sign}${two(Math.floor(offset / 60))}:${two(offset % 60)}`;
    }
    case 'time':
      if (style !== undefined && style !== 121) throw new Error(`style ${style} of time is not modelled`);
      return clock(value);
    case 'date':
      if (style !== undefined && style !== 23 && style !== 121) throw new Error(`style ${style} of date is not modelled`);
      return `${year(value.year)}-${two(value.month)}-${two(value.day)}`;
    case 'binary':
    case 'varbinary':
      if ((style ?? 0) === 0) return value.bytes.toString('latin1');
      if (style === 1) return `0x${value.bytes.toString('hex').toUpperCase()}`;
      if (style === 2) return value.bytes.toString('hex').toUpperCase();
      throw new Error(`style ${style} of binary is not modelled`);
    case 'uniqueidentifier':
      return value.hex.toUpperCase();
    case 'sql_variant':
    case 'geometry':
    case 'geography':
    case 'clr':
      throw new Error(`rendering ${value.type} as text is not modelled`);
  }
}

function renderFloat(value: number, style: number): string {
  const digits = { 0: 6, 1: 8, 2: 16, 3: 17 }[style];
  if (digits === undefined) throw new Error(`style ${style} of float is not modelled`);
  if (style === 0) {
    const exponent = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
    if (exponent >= -4 && exponent < digits) return String(Number(value.toPrecision(digits)));
  }
  const [mantissa, exponent = '0'] = value.toExponential(digits - 1).split('e');
  const power = Number(exponent);
  return `${mantissa}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(3, '0')}`;
}

function renderMoney(tenThousandths: bigint, style: number): string {
  const negative = tenThousandths < 0n;
  const magnitude = negative ? -tenThousandths : tenThousandths;
  const sign = negative ? '-' : '';
  if (style === 2) return `${sign}${magnitude / 10000n}.${String(magnitude % 10000n).padStart(4, '0')}`;
  if (style !== 0) throw new Error(`style ${style} of money is not modelled`);
  const cents = (magnitude + 50n) / 100n;
  return `${sign}${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}

type DateTimeValue = Extract<TsqlValue, { type: 'datetime' | 'smalldatetime' | 'datetime2' }>;

function renderDateTime(value: DateTimeValue, style: number): string {
  const date = `${year(value.year)}-${two(value.month)}-${two(value.day)}`;
  const time = `${two(value.hour)}:${two(value.minute)}:${two(value.second)}`;
  switch (style) {
    case 0:
    case 100: {
      const hour12 = value.hour % 12 === 0 ? 12 : value.hour % 12;
      return `${MONTHS[value.month - 1] ?? '?'} ${String(value.day).padStart(2, ' ')} ${year(value.year)} ${String(hour12).padStart(2, ' ')}:${two(value.minute)}${value.hour < 12 ? 'AM' : 'PM'}`;
    }
    case 120:
      return `${date} ${time}`;
    case 121:
      return value.type === 'smalldatetime' ? `${date} ${time}.000` : `${date} ${clock(value)}`;
    default:
      throw new Error(`style ${style} of ${value.type} is not modelled`);
  }
}

/** hh:mm:ss and the fractional digits of the value's scale, no point at scale 0. */
function clock(value: { hour: number; minute: number; second: number; fraction: string }): string {
  return `${two(value.hour)}:${two(value.minute)}:${two(value.second)}${value.fraction === '' ? '' : `.${value.fraction}`}`;
}

function memberOf(value: Exclude<TsqlValue, { type: 'null' }>, member: string): TsqlValue {
  if (value.type === 'clr' && member === 'ToString') return { type: 'text', text: value.text };
  if (value.type !== 'geometry' && value.type !== 'geography') throw new Error(`${member} of ${value.type} is not modelled`);
  const wkt = (dimensions: number) => `${value.shape} (${value.points.map((point) => point.slice(0, dimensions).join(' ')).join(', ')})`;
  switch (member) {
    case 'STSrid':
      return { type: 'int', value: value.srid };
    case 'STAsText':
      return { type: 'text', text: wkt(2) };
    case 'AsTextZM':
      return { type: 'text', text: wkt(4) };
    default:
      throw new Error(`${member} is not modelled`);
  }
}

const two = (n: number) => String(n).padStart(2, '0');
/** yyyy: the styles with the century "always return the century (yyyy)", so year 1 is 0001. */
const year = (n: number) => String(n).padStart(4, '0');

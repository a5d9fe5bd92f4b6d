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
 * Anything else it is asked to evaluate throws, so an expression it does not model fails the test.
 */
export type TsqlValue =
  | { type: 'text'; text: string }
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

type Token = { kind: 'string' | 'number' | 'word' | 'symbol'; text: string };

const TEXT_TYPES = new Set(['varchar', 'nvarchar', 'char', 'nchar', 'sysname']);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

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

  const parseType = (): string => {
    let type = next().text.toLowerCase();
    if (peek()?.text === '(') {
      next();
      const size = [next().text];
      if (peek()?.text === ',') {
        next();
        size.push(next().text);
      }
      expect(')');
      type += `(${size.join(',')})`;
    }
    return type;
  };

  // Parsed into closures: a CASE evaluates only the branch it takes, as SQL Server does.
  const parsePrimary = (): Expression => {
    const token = next();
    if (token.kind === 'string') return () => ({ type: 'text', text: token.text });
    if (token.kind === 'number') return () => ({ type: 'int', value: Number(token.text) });
    if (token.kind !== 'word') throw new Error(`unexpected ${token.text} in ${expression}`);
    const word = token.text.toUpperCase();
    if (word === 'CASE') {
      const subject = parseSum();
      const branches: [Expression, Expression][] = [];
      while (isWord('WHEN')) {
        next();
        const candidate = parseSum();
        expect('THEN');
        branches.push([candidate, parseSum()]);
      }
      let otherwise: Expression | undefined;
      if (isWord('ELSE')) {
        next();
        otherwise = parseSum();
      }
      expect('END');
      return () => {
        const value = subject();
        const taken = branches.find(([candidate]) => equal(value, candidate()))?.[1] ?? otherwise;
        if (!taken) throw new Error(`no branch of the CASE matched in ${expression}`);
        return taken();
      };
    }
    if (word === 'CONVERT') {
      expect('(');
      const type = parseType();
      expect(',');
      const value = parseSum();
      let style: number | undefined;
      if (peek()?.text === ',') {
        next();
        style = Number(next().text);
      }
      expect(')');
      return () => convert(type, value(), style);
    }
    if (word === 'LOWER') {
      expect('(');
      const value = parseSum();
      expect(')');
      return () => ({ type: 'text', text: textOf(value()).toLowerCase() });
    }
    if (word === 'SQL_VARIANT_PROPERTY') {
      expect('(');
      const value = parseSum();
      expect(',');
      const property = parseSum();
      expect(')');
      return () => {
        const variant = value();
        const name = property();
        if (variant.type !== 'sql_variant' || name.type !== 'text' || name.text !== 'BaseType') throw new Error('only BaseType of a sql_variant is modelled');
        return { type: 'text', text: variant.base.type };
      };
    }
    const bound = bindings[token.text];
    if (!bound) throw new Error(`unknown name ${token.text} in ${expression}`);
    if (peek()?.text !== '.') return () => bound;
    next();
    const member = next().text;
    if (peek()?.text === '(') {
      expect('(');
      expect(')');
    }
    return () => memberOf(bound, member);
  };

  const parseSum = (): Expression => {
    const terms = [parsePrimary()];
    while (peek()?.text === '+') {
      next();
      terms.push(parsePrimary());
    }
    return () =>
      terms
        .map((term) => term())
        .reduce((left, right) => {
          if (left.type !== 'text' || right.type !== 'text') throw new Error('+ is modelled for text only');
          return { type: 'text', text: left.text + right.text };
        });
  };

  const parsed = parseSum();
  if (at !== tokens.length) throw new Error(`unexpected ${tokens[at]?.text ?? ''} in ${expression}`);
  return parsed();
}

/** The text a value renders as. */
export function textOf(value: TsqlValue): string {
  if (value.type !== 'text') throw new Error(`expected text, got ${value.type}`);
  return value.text;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:'((?:[^']|'')*)'|(\d+)|([A-Za-z_][\w]*|\[[^\]]+\])|([(),.+]))/y;
  let at = 0;
  while (at < expression.length) {
    if (/^\s*$/.test(expression.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(expression);
    if (!match) throw new Error(`cannot read ${expression.slice(at)}`);
    at = pattern.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: 'string', text: match[1].replace(/''/g, "'") });
    else if (match[2] !== undefined) tokens.push({ kind: 'number', text: match[2] });
    else if (match[3] !== undefined) tokens.push({ kind: 'word', text: match[3] });
    else tokens.push({ kind: 'symbol', text: match[4] ?? '' });
  }
  return tokens;
}

function equal(left: TsqlValue, right: TsqlValue): boolean {
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
  if (TEXT_TYPES.has(target)) return { type: 'text', text: render(value.type === 'sql_variant' ? value.base : value, style) };
  if (style !== undefined) throw new Error(`a style converting to ${type} is not modelled`);
  if (target === 'varbinary' && (value.type === 'binary' || value.type === 'varbinary')) return { type: 'varbinary', bytes: value.bytes };
  if (value.type !== 'sql_variant') throw new Error(`converting ${value.type} to ${type} is not modelled`);
  const base = value.base;
  if (target === base.type) return base;
  if (target === 'float' && base.type === 'real') return { type: 'float', value: base.value };
  if (target === 'varbinary' && base.type === 'binary') return { type: 'varbinary', bytes: base.bytes };
  if (target === 'datetime2' && base.type === 'datetime2') return base;
  throw new Error(`converting a sql_variant holding ${base.type} to ${type} is not modelled`);
}

function render(value: TsqlValue, style: number | undefined): string {
  switch (value.type) {
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

function memberOf(value: TsqlValue, member: string): TsqlValue {
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

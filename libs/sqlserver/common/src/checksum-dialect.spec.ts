import { createHash } from 'node:crypto';
import { canonicalRowText, type ChecksumColumn } from '@svc/engines';
import { TSQL_CHECKSUM_DIALECT, utf8HashingProblem } from './checksum-dialect';
import { planOfSourceType } from './column-types';
import { evaluateTsql, textOf, type TsqlValue } from './tsql-expression.double';

/*
 * The T-SQL checksum expressions run through the expression double (tsql-expression.double.ts, each rule with the
 * Microsoft page it follows); the expected texts are what PostgreSQL's dialect computes for the value the reader sends
 * (libs/postgres/common checksum-dialect.ts; tools/e2e sqlserver-checksums.integration-spec.ts checks them against a
 * real PostgreSQL).
 */

const column = (sourceType: string, sql = 'x'): ChecksumColumn => ({ sql, type: planOfSourceType('c', sourceType).portableType, declaredType: sourceType });
const canonical = (sourceType: string, value: TsqlValue): string | null => {
  const result = evaluateTsql(TSQL_CHECKSUM_DIALECT.canonicalText(column(sourceType)), { x: value });
  return result.type === 'null' ? null : textOf(result);
};
const at = { year: 2024, month: 1, day: 2, hour: 15, minute: 4, second: 5 };
const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

describe('the T-SQL checksum dialect: canonical texts as the warehouses compute them', () => {
  it.each<[string, string, TsqlValue, string | null]>([
    ['int', 'int', { type: 'int', value: -2147483648 }, '-2147483648'],
    ['bigint', 'bigint', { type: 'bigint', value: 2n ** 63n - 1n }, '9223372036854775807'],
    ['bit 1 (boolean 1)', 'bit', { type: 'bit', value: 1 }, '1'],
    ['bit 0', 'bit', { type: 'bit', value: 0 }, '0'],
    ['decimal keeps its scale', 'decimal(38,10)', { type: 'decimal', text: '12.5000000000' }, '12.5000000000'],
    ['money as numeric(19,4)', 'money', { type: 'money', tenThousandths: -10001n }, '-1.0001'],
    // <12 significant digits>e<the exponent of the first>, standard-checksum-sql.ts's floatCanonicalText.
    ['float in 12 digits', 'float', { type: 'float', value: 0.1 + 0.2 }, '300000000000e-1'],
    ['float 1/3', 'float', { type: 'float', value: 1 / 3 }, '333333333333e-1'],
    ['float negative, large', 'float', { type: 'float', value: -1.7976931348623157e308 }, '-179769313486e308'],
    ['float zero', 'float', { type: 'float', value: 0 }, '0'],
    // 100000000000.5 is exact in a double: PostgreSQL's round (rint) takes the even neighbour, T-SQL's ROUND would not.
    ['float tie rounds to even', 'float', { type: 'float', value: 100000000000.5 }, '100000000000e11'],
    ['float tie rounds to even (odd below)', 'float', { type: 'float', value: 100000000001.5 }, '100000000002e11'],
    ['float tie, negative', 'float', { type: 'float', value: -100000000000.5 }, '-100000000000e11'],
    ['real as its double', 'real', { type: 'real', value: Math.fround(0.1) }, '100000001490e-1'],
    ['date', 'date', { type: 'date', year: 1, month: 1, day: 1 }, '0001-01-01'],
    ['time(3) to microseconds', 'time(3)', { type: 'time', ...at, fraction: '123' }, '15:04:05.123000'],
    ['time(0)', 'time(0)', { type: 'time', ...at, fraction: '' }, '15:04:05.000000'],
    ['time(7) rounded half to even', 'time(7)', { type: 'time', ...at, fraction: '1234565' }, '15:04:05.123456'],
    ['time(7) rounded up', 'time(7)', { type: 'time', ...at, fraction: '1234575' }, '15:04:05.123458'],
    ['time(7) past midnight wraps as date + time does', 'time(7)', { type: 'time', hour: 23, minute: 59, second: 59, fraction: '9999999' }, '00:00:00.000000'],
    ['datetime2(7) carries into the next year', 'datetime2(7)', { type: 'datetime2', year: 2023, month: 12, day: 31, hour: 23, minute: 59, second: 59, fraction: '9999996' }, '2024-01-01 00:00:00.000000'],
    ['datetime2(7) tie 0.0000015 rounds to 2 µs', 'datetime2(7)', { type: 'datetime2', ...at, fraction: '0000015' }, '2024-01-02 15:04:05.000002'],
    ['datetime2(7) tie 0.0000005 rounds to 0 µs', 'datetime2(7)', { type: 'datetime2', ...at, fraction: '0000005' }, '2024-01-02 15:04:05.000000'],
    ['datetime2(3)', 'datetime2(3)', { type: 'datetime2', ...at, fraction: '120' }, '2024-01-02 15:04:05.120000'],
    ['datetime2(0)', 'datetime2(0)', { type: 'datetime2', ...at, fraction: '' }, '2024-01-02 15:04:05.000000'],
    ['datetime as its 3 digits', 'datetime', { type: 'datetime', ...at, fraction: '997' }, '2024-01-02 15:04:05.997000'],
    ['smalldatetime', 'smalldatetime', { type: 'smalldatetime', ...at, second: 0, fraction: '' }, '2024-01-02 15:04:00.000000'],
    ['datetimeoffset(7) in UTC', 'datetimeoffset(7)', { type: 'datetimeoffset', ...at, fraction: '1234567', offsetMinutes: 5 * 60 + 45 }, '2024-01-02 09:19:05.123457'],
    ['datetimeoffset(0) west of UTC across midnight', 'datetimeoffset(0)', { type: 'datetimeoffset', year: 2024, month: 2, day: 28, hour: 22, minute: 0, second: 0, fraction: '', offsetMinutes: -(3 * 60 + 30) }, '2024-02-29 01:30:00.000000'],
    ['char(n) without its padding', 'char(10)', { type: 'text', text: 'ab        ' }, 'ab'],
    ['nchar(n) without its padding', 'nchar(10)', { type: 'text', text: '😀 é      ' }, '😀 é'],
    ['varchar keeps trailing blanks', 'varchar(40)', { type: 'text', text: 'ab  ' }, 'ab  '],
    ['empty varchar stays empty', 'nvarchar(40)', { type: 'text', text: '' }, ''],
    ['binary as lower-case hex', 'varbinary(100)', { type: 'varbinary', bytes: Buffer.from([0x00, 0x41, 0xff]) }, '0041ff'],
    ['empty binary as NULL (Redshift loads it so)', 'varbinary(100)', { type: 'varbinary', bytes: Buffer.alloc(0) }, null],
    ['uniqueidentifier in lower case', 'uniqueidentifier', { type: 'uniqueidentifier', hex: '6F9619FF-8B86-D011-B42D-00C04FC964FF' }, '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
    ['sql_variant as the reader renders it', 'sql_variant', { type: 'sql_variant', base: { type: 'money', tenThousandths: 123456n } }, '12.3456'],
    ['geography as extended WKT', 'geography', { type: 'geography', srid: 4326, shape: 'POINT', points: [[1, 2]] }, 'SRID=4326;POINT (1 2)'],
    ['hierarchyid as its path', 'hierarchyid', { type: 'clr', text: '/1/3/' }, '/1/3/'],
    ['xml as its text', 'xml', { type: 'text', text: '<a b="1"/>' }, '<a b="1"/>'],
    ['NULL stays NULL', 'datetime2(7)', { type: 'null' }, null],
    ['NULL float stays NULL', 'float', { type: 'null' }, null],
    ['NULL bit stays NULL', 'bit', { type: 'null' }, null],
  ])('%s', (_name, sourceType, value, expected) => {
    expect(canonical(sourceType, value)).toBe(expected);
  });

  it('hashes the row text as UTF-8, `\\N` for NULL, `|` between fields, separators escaped', () => {
    const columns = [column('int', 'a'), column('nvarchar(40)', 'b'), column('varchar(40)', 'c'), column('datetime2(7)', 'd')];
    const row = { a: { type: 'int', value: 7 }, b: { type: 'text', text: '😀 a|b\\c' }, c: { type: 'null' }, d: { type: 'datetime2', ...at, fraction: '0000000' } } satisfies Record<string, TsqlValue>;
    const digest = evaluateTsql(TSQL_CHECKSUM_DIALECT.md5(canonicalRowText(TSQL_CHECKSUM_DIALECT, columns)), row);
    expect(textOf(digest)).toBe(md5('7|😀 a\\|b\\\\c|\\N|2024-01-02 15:04:05.000000'));
  });

  it('hashes UTF-8 bytes, not UTF-16 (an nvarchar) nor a code page (a varchar without a UTF-8 collation)', () => {
    const text: TsqlValue = { type: 'text', text: 'é', national: true };
    expect(textOf(evaluateTsql(TSQL_CHECKSUM_DIALECT.md5('x'), { x: text }))).toBe(md5('é'));
    expect(textOf(evaluateTsql("LOWER(CONVERT(varchar(32), HASHBYTES('MD5', x), 2))", { x: text }))).not.toBe(md5('é'));
    expect(() => evaluateTsql("HASHBYTES('MD5', CONVERT(varchar(max), x))", { x: text })).toThrow(/code page/);
  });

  it('reads the first hex digits of a hash as a non-negative bigint', () => {
    const hash: TsqlValue = { type: 'text', text: 'ffffffffffffffff0123456789abcdef' };
    for (const digits of [8, 15]) {
      const value = evaluateTsql(TSQL_CHECKSUM_DIALECT.hexPrefixValue('h', digits), { h: hash });
      expect(value).toEqual({ type: 'bigint', value: BigInt(`0x${'f'.repeat(digits)}`) });
    }
    expect(() => TSQL_CHECKSUM_DIALECT.hexPrefixValue('h', 16)).toThrow(RangeError);
  });

  it('binds key texts as @p1… and reads them back as staging converts the interchange text', () => {
    expect(TSQL_CHECKSUM_DIALECT.parameter(3)).toBe('@p3');
    expect(evaluateTsql(TSQL_CHECKSUM_DIALECT.keyFromText('p', column('datetime2(7)')), { p: { type: 'text', text: '2024-01-02 15:04:05.1234567' } })).toEqual({
      type: 'datetime2',
      ...at,
      fraction: '1234567',
    });
    expect(textOf(evaluateTsql(TSQL_CHECKSUM_DIALECT.keyText(column('uniqueidentifier')), { x: { type: 'uniqueidentifier', hex: 'ABCDEF00-0000-0000-0000-000000000000' } }))).toBe(
      'abcdef00-0000-0000-0000-000000000000',
    );
  });

  it('limits distinct rows with TOP and returns sums as text (tedious reads decimal as a JavaScript number)', () => {
    expect(TSQL_CHECKSUM_DIALECT.distinctAtMost(11)).toEqual({ select: 'SELECT DISTINCT TOP (11)', after: '' });
    // SUM of a bigint is a bigint in T-SQL (sum-transact-sql: "bigint → bigint"): 60-bit digests must be summed as decimals.
    const summed = TSQL_CHECKSUM_DIALECT.digestSum('x');
    expect(summed).toMatch(/^CONVERT\(varchar\(40\), SUM\(CONVERT\(decimal\(38,0\), x\)\)\)$/);
    // The expression double evaluates scalars: the sum of one row is its value, the largest digest here.
    expect(evaluateTsql(summed.replace('SUM(', '('), { x: { type: 'bigint', value: 2n ** 60n - 1n } })).toEqual({
      type: 'text',
      text: '1152921504606846975',
      national: false,
    });
  });
});

describe('the expression double refuses what it does not model', () => {
  it.each([
    ['an unknown function', 'SOUNDEX(x)'],
    ['REPLACE under a collation that is not binary (it would match characters the collation deems equal)', "REPLACE(x, '|', 'y')"],
    ['LOG of zero', 'LOG10(CONVERT(float, 0))'],
    ['a rounding conversion to a smaller scale', 'CONVERT(datetime2(6), CONVERT(datetime2(7), x, 121))'],
  ])('%s', (_name, expression) => {
    expect(() => evaluateTsql(expression, { x: { type: 'text', text: '2024-01-02 15:04:05.1234567' } })).toThrow();
  });

  it('yields NULL for `+` with NULL, unlike CONCAT', () => {
    expect(evaluateTsql("N'a' + x", { x: { type: 'null' } })).toEqual({ type: 'null' });
  });
});

describe('which servers can hash UTF-8 text', () => {
  it.each<[number, number, boolean]>([
    [14, 3, false],
    [13, 2, false],
    [15, 3, true],
    [16, 2, true],
    // Azure SQL Database and Managed Instance report ProductVersion 12.x whatever they support.
    [12, 5, true],
    [12, 8, true],
  ])('major version %p, edition %p: %p', (major, edition, supported) => {
    expect(utf8HashingProblem(major, edition) === null).toBe(supported);
  });

  it('says why an older server cannot validate', () => {
    expect(utf8HashingProblem(14, 3)).toMatch(/SQL Server 2019 or later, or Azure SQL.*UTF-8.*version 14/);
  });
});

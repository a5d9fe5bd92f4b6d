import { Value } from '@sinclair/typebox/value';
import { PortableTypeSchema, interchangeTextProblem } from '@svc/contracts';
import { SQLSERVER_TYPE_SAMPLES, columnPlan, planOfSourceType, type ColumnPlan } from '@svc/sqlserver/common';
import { evaluateTsql, textOf, type TsqlValue } from '@svc/sqlserver/common/testing';
import { csvField } from './csv';

/*
 * What the source writes is the row interchange format (libs/contracts row-format.ts): each column's read, run
 * on representative values (the extremes of each type, a zero, both signs), is checked against its portable type.
 * The T-SQL reads run through the expression double (tsql-expression.double.ts: the styles Microsoft documents),
 * float and real through the rendering the row stream uses. A sample type without values here fails below.
 */

const at = { year: 2024, month: 1, day: 2, hour: 15, minute: 4, second: 5 };
const first = { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
const last = { year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59 };
const text = (value: string): TsqlValue => ({ type: 'text', text: value });
const bytes = (...values: number[]): TsqlValue => ({ type: 'varbinary', bytes: Buffer.from(values) });
const binary = (length: number): TsqlValue => ({ type: 'binary', bytes: Buffer.from(Array.from({ length }, (_, index) => (index * 37) % 256)) });

/** Values of each type the source reads in T-SQL, by the plan's source type. */
const SQL_VALUES: Readonly<Record<string, readonly TsqlValue[]>> = {
  int: [{ type: 'int', value: -2147483648 }, { type: 'int', value: 0 }, { type: 'int', value: 2147483647 }],
  bigint: [{ type: 'bigint', value: -(2n ** 63n) }, { type: 'bigint', value: 2n ** 63n - 1n }],
  smallint: [{ type: 'int', value: -32768 }, { type: 'int', value: 32767 }],
  tinyint: [{ type: 'int', value: 0 }, { type: 'int', value: 255 }],
  bit: [{ type: 'bit', value: 1 }, { type: 'bit', value: 0 }],
  'decimal(38,10)': [
    { type: 'decimal', text: '12.3400000000' },
    { type: 'decimal', text: '-0.0000000001' },
    { type: 'decimal', text: '9999999999999999999999999999.9999999999' },
  ],
  money: [{ type: 'money', tenThousandths: -(2n ** 63n) }, { type: 'money', tenThousandths: 0n }, { type: 'money', tenThousandths: 2n ** 63n - 1n }],
  smallmoney: [{ type: 'smallmoney', tenThousandths: -(2n ** 31n) }, { type: 'smallmoney', tenThousandths: 2n ** 31n - 1n }],
  date: [{ type: 'date', year: 1, month: 1, day: 1 }, { type: 'date', year: 9999, month: 12, day: 31 }],
  'time(7)': [{ type: 'time', ...last, fraction: '9999999' }, { type: 'time', ...first, fraction: '0000000' }],
  'time(0)': [{ type: 'time', ...at, fraction: '' }],
  'datetime2(7)': [{ type: 'datetime2', ...last, fraction: '9999999' }, { type: 'datetime2', ...first, fraction: '0000000' }],
  'datetime2(3)': [{ type: 'datetime2', ...at, fraction: '123' }],
  'datetime2(0)': [{ type: 'datetime2', ...at, fraction: '' }],
  datetime: [{ type: 'datetime', year: 1753, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: '000' }, { type: 'datetime', ...last, fraction: '997' }],
  smalldatetime: [{ type: 'smalldatetime', ...at, second: 0, fraction: '' }],
  'datetimeoffset(7)': [
    { type: 'datetimeoffset', ...last, fraction: '9999999', offsetMinutes: 14 * 60 },
    { type: 'datetimeoffset', ...first, fraction: '0000000', offsetMinutes: -14 * 60 },
    { type: 'datetimeoffset', ...at, fraction: '1234567', offsetMinutes: 5 * 60 + 45 },
    { type: 'datetimeoffset', ...at, fraction: '1234567', offsetMinutes: 0 },
  ],
  'datetimeoffset(0)': [{ type: 'datetimeoffset', ...at, fraction: '', offsetMinutes: -(3 * 60 + 30) }],
  'char(10)': [text('ab        ')],
  'nchar(10)': [text('😀 é      ')],
  'varchar(40)': [text(''), text('a,b "c"')],
  'nvarchar(40)': [text('line\nbreak')],
  'varchar(max)': [text('x'.repeat(9000))],
  'nvarchar(max)': [text('𝄞')],
  text: [text('legacy text')],
  ntext: [text('legacy ntext')],
  xml: [text('<a b="1"/>')],
  'binary(16)': [binary(16)],
  'varbinary(100)': [bytes(), bytes(0x00, 0x41, 0xff)],
  'varbinary(max)': [binary(9000)],
  image: [bytes(0x89, 0x50, 0x4e, 0x47)],
  rowversion: [binary(8)],
  uniqueidentifier: [{ type: 'uniqueidentifier', hex: '6F9619FF-8B86-D011-B42D-00C04FC964FF' }],
  sql_variant: [{ type: 'sql_variant', base: { type: 'money', tenThousandths: 123456n } }, { type: 'sql_variant', base: { type: 'varbinary', bytes: Buffer.from([1]) } }],
  geometry: [{ type: 'geometry', srid: 0, shape: 'POINT', points: [[1, 2, 3, 4]] }],
  geography: [{ type: 'geography', srid: 4326, shape: 'LINESTRING', points: [[1, 2], [3, 4]] }],
  hierarchyid: [{ type: 'clr', text: '/1/3/' }],
  json: [text('{"a": [1, 2.5, null]}')],
  vector: [text('[1.0000000e+000,-2.5000000e-001]')],
  Money2: [{ type: 'clr', text: '12.34 EUR' }],
};

/** Values of float and real as the driver hands them over: IEEE doubles (a real's is its float's exact value). */
const JS_VALUES: Readonly<Record<string, readonly number[]>> = {
  float: [0.1 + 0.2, 1 / 3, 5e-324, -1.7976931348623157e308, 1e21, 123456789.123, 0, -0],
  real: [Math.fround(0.1), Math.fround(3.4028234663852886e38), Math.fround(-1.17549435e-38), 0],
};

/** Scales the samples do not show whose text differs (no fractional point at all). */
const EXTRA_SOURCE_TYPES = ['time(0)', 'datetime2(0)', 'datetimeoffset(0)'];

const plans: readonly ColumnPlan[] = [...SQLSERVER_TYPE_SAMPLES.map(({ column }) => columnPlan(column)), ...EXTRA_SOURCE_TYPES.map((type) => planOfSourceType('c', type))];

/** The field each value is written as: SQL Server's text for a T-SQL read, the row stream's for float and real. */
function fieldsOf(plan: ColumnPlan): string[] {
  if (plan.rendersInJs) return (JS_VALUES[plan.sourceType] ?? []).map((value) => csvField(value));
  return (SQL_VALUES[plan.sourceType] ?? []).map((value) => textOf(evaluateTsql(plan.select('x'), { x: value })));
}

describe('the SQL Server source writes the row interchange format', () => {
  it.each(plans.map((plan) => [plan.sourceType, plan] as const))('%s', (_type, plan) => {
    expect(Value.Check(PortableTypeSchema, plan.portableType)).toBe(true);
    const fields = fieldsOf(plan);
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.map((field) => ({ field, problem: interchangeTextProblem(plan.portableType, field) }))).toEqual(fields.map((field) => ({ field, problem: null })));
  });

  // The forms themselves, so that the checks above are seen to check something.
  it.each<[string, TsqlValue, string]>([
    ['datetimeoffset(7)', { type: 'datetimeoffset', ...at, fraction: '1234567', offsetMinutes: -(3 * 60 + 30) }, '2024-01-02 15:04:05.1234567 -03:30'],
    ['datetimeoffset(0)', { type: 'datetimeoffset', ...at, fraction: '', offsetMinutes: 0 }, '2024-01-02 15:04:05 +00:00'],
    ['datetime2(7)', { type: 'datetime2', ...at, fraction: '1234567' }, '2024-01-02 15:04:05.1234567'],
    ['time(7)', { type: 'time', ...at, fraction: '1234567' }, '15:04:05.1234567'],
    ['money', { type: 'money', tenThousandths: -10001n }, '-1.0001'],
    ['bit', { type: 'bit', value: 1 }, 'true'],
    ['bit', { type: 'bit', value: 0 }, 'false'],
    ['varbinary(100)', { type: 'varbinary', bytes: Buffer.from([0x00, 0x41, 0xff]) }, '\\x0041FF'],
    ['uniqueidentifier', { type: 'uniqueidentifier', hex: '6F9619FF-8B86-D011-B42D-00C04FC964FF' }, '6f9619ff-8b86-d011-b42d-00c04fc964ff'],
  ])('%s reads as %p', (sourceType, value, expected) => {
    expect(textOf(evaluateTsql(planOfSourceType('c', sourceType).select('x'), { x: value }))).toBe(expected);
  });

  it.each<[number, string]>([
    [0.1 + 0.2, '0.30000000000000004'],
    [Math.fround(0.1), '0.10000000149011612'],
    [1e21, '1e+21'],
    [-0, '-0'],
  ])('float and real: %p is written %p', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});

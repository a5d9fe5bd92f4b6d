import { canonicalRowText, rowDigestText, ROW_DIGEST_HEX_DIGITS, type ChecksumColumn } from '@svc/engines';
import { TSQL_CHECKSUM_DIALECT, type ColumnPlan } from '@svc/sqlserver/common';
import { evaluateTsql, textOf, type TsqlValue } from '@svc/sqlserver/common/testing';

/*
 * Values of every SQL Server type, and what SQL Server's side of validation makes of them on the T-SQL expression
 * double (libs/sqlserver/common tsql-expression.double.ts, which cites Microsoft's pages for each function): the
 * specs that compare them with each warehouse's canonical texts share them (sqlserver-*checksums.integration-spec.ts).
 */

const at = { year: 2024, month: 1, day: 2, hour: 15, minute: 4, second: 5 };
const text = (value: string): TsqlValue => ({ type: 'text', text: value });

/** Values of every SQL Server type, by source type: extremes, ties of the rounding digit, separators, blanks, NULL. */
export const VALUES: Readonly<Record<string, readonly TsqlValue[]>> = {
  int: [{ type: 'int', value: -2147483648 }, { type: 'int', value: 0 }, { type: 'int', value: 2147483647 }],
  bigint: [{ type: 'bigint', value: -(2n ** 63n) }, { type: 'bigint', value: 2n ** 63n - 1n }],
  smallint: [{ type: 'int', value: -32768 }],
  tinyint: [{ type: 'int', value: 255 }],
  bit: [{ type: 'bit', value: 1 }, { type: 'bit', value: 0 }],
  'decimal(38,10)': [{ type: 'decimal', text: '12.3400000000' }, { type: 'decimal', text: '-0.0000000001' }, { type: 'decimal', text: '9999999999999999999999999999.9999999999' }],
  'numeric(5,0)': [{ type: 'decimal', text: '-12345' }],
  // More decimals than Redshift's DECIMAL keeps (37): its exact text in a VARCHAR there (redshift-types.ts).
  'decimal(38,38)': [{ type: 'decimal', text: '0.12345678901234567890123456789012345678' }, { type: 'decimal', text: '-0.00000000000000000000000000000000000001' }, { type: 'decimal', text: '0.00000000000000000000000000000000000000' }],
  money: [{ type: 'money', tenThousandths: -(2n ** 63n) }, { type: 'money', tenThousandths: 5000n }, { type: 'money', tenThousandths: 2n ** 63n - 1n }],
  smallmoney: [{ type: 'smallmoney', tenThousandths: -(2n ** 31n) }],
  float: [0.1 + 0.2, 1 / 3, -1.7976931348623157e308, 1e21, 123456789.123, 100000000000.5, 100000000001.5, -2.5e-300, 0, 1000, 999999999999.5].map((value): TsqlValue => ({ type: 'float', value })),
  real: [0.1, 3.4028234663852886e38, -1.17549435e-38, 16777217, 0].map((value): TsqlValue => ({ type: 'real', value: Math.fround(value) })),
  date: [{ type: 'date', year: 1, month: 1, day: 1 }, { type: 'date', year: 9999, month: 12, day: 31 }],
  'time(7)': [
    ...['0000005', '0000015', '0000025', '1234565', '1234575', '9999994', '9999995', '0000000'].map((fraction): TsqlValue => ({ type: 'time', ...at, fraction })),
    // Rounded to the microsecond, the last instant of a day is midnight.
    { type: 'time', hour: 23, minute: 59, second: 59, fraction: '9999995' },
  ],
  'time(3)': [{ type: 'time', ...at, fraction: '120' }],
  'time(0)': [{ type: 'time', ...at, fraction: '' }],
  'datetime2(7)': [
    ...['0000005', '0000015', '0000025', '0000035', '1234565', '1234575', '5555555', '9999995', '4999995'].map((fraction): TsqlValue => ({ type: 'datetime2', ...at, fraction })),
    { type: 'datetime2', year: 2023, month: 12, day: 31, hour: 23, minute: 59, second: 59, fraction: '9999995' },
    { type: 'datetime2', year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: '0000000' },
  ],
  'datetime2(3)': [{ type: 'datetime2', ...at, fraction: '123' }],
  'datetime2(0)': [{ type: 'datetime2', ...at, fraction: '' }],
  datetime: [{ type: 'datetime', ...at, fraction: '997' }, { type: 'datetime', year: 1753, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: '003' }],
  smalldatetime: [{ type: 'smalldatetime', ...at, second: 0, fraction: '' }],
  'datetimeoffset(7)': [
    { type: 'datetimeoffset', ...at, fraction: '1234565', offsetMinutes: 5 * 60 + 45 },
    { type: 'datetimeoffset', ...at, fraction: '9999995', offsetMinutes: -14 * 60 },
    { type: 'datetimeoffset', year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59, fraction: '9999990', offsetMinutes: 14 * 60 },
  ],
  'datetimeoffset(0)': [{ type: 'datetimeoffset', year: 2024, month: 2, day: 28, hour: 22, minute: 0, second: 0, fraction: '', offsetMinutes: -(3 * 60 + 30) }],
  'char(10)': [text('ab        '), text('          ')],
  'nchar(10)': [text('😀 é|\\    ')],
  'varchar(40)': [text(''), text('trailing  '), text('a|b\\c\\N')],
  'nvarchar(40)': [text('line\nbreak 𝄞 ü 中文')],
  'varchar(max)': [text('x'.repeat(9000))],
  'nvarchar(max)': [text('\\N')],
  text: [text('legacy text')],
  ntext: [text('legacy ntext')],
  xml: [text('<a b="1"/>')],
  'binary(16)': [{ type: 'binary', bytes: Buffer.from(Array.from({ length: 16 }, (_, index) => index * 17)) }],
  'varbinary(100)': [{ type: 'varbinary', bytes: Buffer.alloc(0) }, { type: 'varbinary', bytes: Buffer.from([0x00, 0x41, 0xff]) }],
  'varbinary(max)': [{ type: 'varbinary', bytes: Buffer.alloc(9000, 0xab) }],
  image: [{ type: 'varbinary', bytes: Buffer.from([0x89, 0x50]) }],
  rowversion: [{ type: 'binary', bytes: Buffer.from([0, 0, 0, 0, 0, 0, 0x07, 0xd1]) }],
  uniqueidentifier: [{ type: 'uniqueidentifier', hex: '6F9619FF-8B86-D011-B42D-00C04FC964FF' }],
  sql_variant: [{ type: 'sql_variant', base: { type: 'float', value: 0.1 } }, { type: 'sql_variant', base: { type: 'varbinary', bytes: Buffer.from([1]) } }],
  geometry: [{ type: 'geometry', srid: 0, shape: 'POINT', points: [[1, 2, 3, 4]] }],
  geography: [{ type: 'geography', srid: 4326, shape: 'LINESTRING', points: [[1, 2], [3, 4]] }],
  hierarchyid: [{ type: 'clr', text: '/1/3/' }],
  json: [text('{"a": [1, 2.5, null]}')],
  vector: [text('[1.0000000e+000,-2.5000000e-001]')],
};

/** The field the reader sends: SQL Server's text of its read, or for float and real the row stream's (csv.ts). */
export function interchangeText(plan: ColumnPlan, value: TsqlValue): string | null {
  if (value.type === 'null') return null;
  if (plan.rendersInJs) {
    if (value.type !== 'float' && value.type !== 'real') throw new Error(`a ${plan.sourceType} value must be a number`);
    return Object.is(value.value, -0) ? '-0' : String(value.value);
  }
  return textOf(evaluateTsql(plan.select('x'), { x: value }));
}

/** SQL Server's canonical text of the value in a column of the plan's type; null for NULL. */
export function tsqlCanonical(plan: ColumnPlan, value: TsqlValue): string | null {
  const column: ChecksumColumn = { sql: 'x', type: plan.portableType, declaredType: plan.sourceType };
  const result = evaluateTsql(TSQL_CHECKSUM_DIALECT.canonicalText(column), { x: value });
  return result.type === 'null' ? null : textOf(result);
}

/** SQL Server's 60-bit digest of a row of these columns and values, as decimal text. */
export function tsqlDigest(plans: readonly ColumnPlan[], values: readonly TsqlValue[]): string {
  const columns = plans.map((plan, index): ChecksumColumn => ({ sql: `c${index}`, type: plan.portableType, declaredType: plan.sourceType }));
  const bindings = Object.fromEntries(values.map((value, index) => [`c${index}`, value]));
  const digest = evaluateTsql(TSQL_CHECKSUM_DIALECT.hexPrefixValue(TSQL_CHECKSUM_DIALECT.md5(rowDigestText(TSQL_CHECKSUM_DIALECT, columns)), ROW_DIGEST_HEX_DIGITS), bindings);
  if (digest.type !== 'bigint') throw new Error(`a row digest is a bigint, not ${digest.type}`);
  return digest.value.toString();
}

/** SQL Server's key text (what the warehouse casts back to its type) and key hash of the value as a one-column key. */
export function tsqlKey(plan: ColumnPlan, value: TsqlValue): { keyText: string; keyHash: string } {
  const column: ChecksumColumn = { sql: 'x', type: plan.portableType, declaredType: plan.sourceType };
  const keyHash = evaluateTsql(TSQL_CHECKSUM_DIALECT.md5(canonicalRowText(TSQL_CHECKSUM_DIALECT, [column])), { x: value });
  const keyText = evaluateTsql(TSQL_CHECKSUM_DIALECT.keyText(column), { x: value });
  // tedious reads float and real as JavaScript numbers, which checksum-rows.ts writes as their shortest text.
  const text = keyText.type === 'float' || keyText.type === 'real' ? String(keyText.value) : textOf(keyText);
  return { keyText: text, keyHash: textOf(keyHash) };
}

/** Every value of VALUES and a NULL of each type, numbered within its type. */
export const CASES = Object.entries(VALUES).flatMap(([sourceType, values]) => [...values, { type: 'null' } as const].map((value, index) => ({ sourceType, index, value })));

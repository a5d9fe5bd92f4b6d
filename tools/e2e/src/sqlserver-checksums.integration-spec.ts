import { canonicalRowText, ROW_DIGEST_HEX_DIGITS, type ChecksumColumn } from '@svc/engines';
import { INTERCHANGE_TEXT_SETTINGS_SQL, POSTGRES_CHECKSUM_DIALECT, postgresColumnType } from '@svc/postgres/common';
import { SQLSERVER_TYPE_SAMPLES, TSQL_CHECKSUM_DIALECT, columnPlan, planOfSourceType, type ColumnPlan } from '@svc/sqlserver/common';
import { evaluateTsql, textOf, type TsqlValue } from '@svc/sqlserver/common/testing';
import { Client } from 'pg';

/*
 * Validation compares digests computed by two engines (issue 24): SQL Server's are only right if the T-SQL canonical
 * text of every SQL Server type equals, value for value, what PostgreSQL's warehouse dialect computes for the value the
 * reader sent it. SQL Server cannot run here: its side runs on the T-SQL expression double, which evaluates each
 * expression as Microsoft documents (libs/sqlserver/common tsql-expression.double.ts cites each page, among them
 * https://learn.microsoft.com/en-us/sql/t-sql/functions/hashbytes-transact-sql and
 * https://learn.microsoft.com/en-us/sql/t-sql/functions/cast-and-convert-transact-sql); PostgreSQL's side is a real
 * PostgreSQL, the value loaded from the reader's interchange text into the type the PostgreSQL warehouse declares.
 */

const at = { year: 2024, month: 1, day: 2, hour: 15, minute: 4, second: 5 };
const text = (value: string): TsqlValue => ({ type: 'text', text: value });

/** Values of every SQL Server type, by source type: extremes, ties of the rounding digit, separators, blanks, NULL. */
const VALUES: Readonly<Record<string, readonly TsqlValue[]>> = {
  int: [{ type: 'int', value: -2147483648 }, { type: 'int', value: 0 }, { type: 'int', value: 2147483647 }],
  bigint: [{ type: 'bigint', value: -(2n ** 63n) }, { type: 'bigint', value: 2n ** 63n - 1n }],
  smallint: [{ type: 'int', value: -32768 }],
  tinyint: [{ type: 'int', value: 255 }],
  bit: [{ type: 'bit', value: 1 }, { type: 'bit', value: 0 }],
  'decimal(38,10)': [{ type: 'decimal', text: '12.3400000000' }, { type: 'decimal', text: '-0.0000000001' }, { type: 'decimal', text: '9999999999999999999999999999.9999999999' }],
  'numeric(5,0)': [{ type: 'decimal', text: '-12345' }],
  money: [{ type: 'money', tenThousandths: -(2n ** 63n) }, { type: 'money', tenThousandths: 5000n }, { type: 'money', tenThousandths: 2n ** 63n - 1n }],
  smallmoney: [{ type: 'smallmoney', tenThousandths: -(2n ** 31n) }],
  float: [0.1 + 0.2, 1 / 3, -1.7976931348623157e308, 1e21, 123456789.123, 100000000000.5, 100000000001.5, -2.5e-300, 0, 1000, 999999999999.5].map((value): TsqlValue => ({ type: 'float', value })),
  real: [0.1, 3.4028234663852886e38, -1.17549435e-38, 16777217, 0].map((value): TsqlValue => ({ type: 'real', value: Math.fround(value) })),
  date: [{ type: 'date', year: 1, month: 1, day: 1 }, { type: 'date', year: 9999, month: 12, day: 31 }],
  'time(7)': ['0000005', '0000015', '0000025', '1234565', '1234575', '9999994', '9999995', '0000000'].map((fraction): TsqlValue => ({ type: 'time', ...at, fraction })),
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
function interchangeText(plan: ColumnPlan, value: TsqlValue): string | null {
  if (value.type === 'null') return null;
  if (plan.rendersInJs) {
    if (value.type !== 'float' && value.type !== 'real') throw new Error(`a ${plan.sourceType} value must be a number`);
    return Object.is(value.value, -0) ? '-0' : String(value.value);
  }
  return textOf(evaluateTsql(plan.select('x'), { x: value }));
}

function tsqlCanonical(column: ChecksumColumn, value: TsqlValue): string | null {
  const result = evaluateTsql(TSQL_CHECKSUM_DIALECT.canonicalText(column), { x: value });
  return result.type === 'null' ? null : textOf(result);
}

const cases = Object.entries(VALUES).flatMap(([sourceType, values]) => [...values, { type: 'null' } as const].map((value, index) => ({ sourceType, index, value })));

describe('SQL Server canonical texts equal PostgreSQL warehouse canonical texts, value for value (T-SQL on the double, PostgreSQL real)', () => {
  const postgres = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });

  beforeAll(async () => {
    await postgres.connect();
    await postgres.query(`begin read only;\n${INTERCHANGE_TEXT_SETTINGS_SQL}`);
  });

  afterAll(async () => {
    await postgres.query('rollback').catch(() => undefined);
    await postgres.end();
  });

  /** PostgreSQL's canonical text and digest of a row loaded from the reader's texts into the warehouse's types. */
  async function postgresSide(plans: readonly ColumnPlan[], fields: readonly (string | null)[]): Promise<{ texts: (string | null)[]; digest: string }> {
    const columns = plans.map((plan, index): ChecksumColumn => {
      const declaredType = postgresColumnType(plan.portableType).type;
      return { sql: `t.c${index}`, type: plan.portableType, declaredType };
    });
    const loaded = columns.map((column, index) => `CAST($${index + 1}::text AS ${column.declaredType}) AS c${index}`).join(', ');
    const texts = columns.map((column, index) => `${POSTGRES_CHECKSUM_DIALECT.canonicalText(column)} AS text_${index}`).join(', ');
    const digest = POSTGRES_CHECKSUM_DIALECT.hexPrefixValue(POSTGRES_CHECKSUM_DIALECT.md5(canonicalRowText(POSTGRES_CHECKSUM_DIALECT, columns)), ROW_DIGEST_HEX_DIGITS);
    const [row] = (await postgres.query<Record<string, string | null>>(`SELECT ${texts}, (${digest})::text AS digest FROM (SELECT ${loaded}) t`, [...fields])).rows;
    if (row === undefined) throw new Error('PostgreSQL returned no row');
    return { texts: columns.map((_, index) => row[`text_${index}`] ?? null), digest: row['digest'] ?? '' };
  }

  function tsqlDigest(plans: readonly ColumnPlan[], values: readonly TsqlValue[]): string {
    const columns = plans.map((plan, index): ChecksumColumn => ({ sql: `c${index}`, type: plan.portableType, declaredType: plan.sourceType }));
    const bindings = Object.fromEntries(values.map((value, index) => [`c${index}`, value]));
    const digest = evaluateTsql(TSQL_CHECKSUM_DIALECT.hexPrefixValue(TSQL_CHECKSUM_DIALECT.md5(canonicalRowText(TSQL_CHECKSUM_DIALECT, columns)), ROW_DIGEST_HEX_DIGITS), bindings);
    if (digest.type !== 'bigint') throw new Error(`a row digest is a bigint, not ${digest.type}`);
    return digest.value.toString();
  }

  it.each(cases.map((entry) => [`${entry.sourceType} #${entry.index}${entry.value.type === 'null' ? ' (NULL)' : ''}`, entry] as const))('%s', async (_name, { sourceType, value }) => {
    const plan = planOfSourceType('c', sourceType);
    const column: ChecksumColumn = { sql: 'x', type: plan.portableType, declaredType: plan.sourceType };
    const expected = await postgresSide([plan], [interchangeText(plan, value)]);
    expect({ text: tsqlCanonical(column, value), digest: tsqlDigest([plan], [value]) }).toEqual({ text: expected.texts[0], digest: expected.digest });
  });

  it('digests a row of every type alike: fields, separators, escapes, NULLs and UTF-8 bytes', async () => {
    for (const pick of [0, 1]) {
      const entries = Object.entries(VALUES).map(([sourceType, values]) => ({ plan: planOfSourceType('c', sourceType), value: values[pick] ?? ({ type: 'null' } as const) }));
      const plans = entries.map((entry) => entry.plan);
      const expected = await postgresSide(plans, entries.map((entry) => interchangeText(entry.plan, entry.value)));
      expect(tsqlDigest(plans, entries.map((entry) => entry.value))).toBe(expected.digest);
    }
  });

  it('every SQL Server type the source reads has values here', () => {
    const covered = new Set(Object.keys(VALUES).map((sourceType) => planOfSourceType('c', sourceType).sourceType));
    const read = SQLSERVER_TYPE_SAMPLES.filter((sample) => !sample.column.isClrType || ['geometry', 'geography', 'hierarchyid'].includes(sample.column.typeName));
    expect(read.map((sample) => columnPlan(sample.column).sourceType).filter((sourceType) => !covered.has(sourceType))).toEqual([]);
  });
});

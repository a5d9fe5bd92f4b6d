import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Portable, type PortableType } from '@svc/contracts';
import { isEngineError } from '@svc/engines';
import { UnsupportedColumnTypeError, columnPlan, planOfSourceType, stagingPlanOf, type CatalogColumn } from './column-types';
import { evaluateTsql, textOf, type TsqlValue } from './tsql-expression.double';

const column = (typeName: string, size: Partial<CatalogColumn> = {}): CatalogColumn => ({
  name: 'c',
  typeName,
  isClrType: false,
  maxLength: 0,
  precision: 0,
  scale: 0,
  ...size,
});

describe('SQL Server column plans: types on each side and the T-SQL that renders a value as text', () => {
  it.each<[string, CatalogColumn, string, PortableType, string]>([
    ['bigint', column('bigint'), 'bigint', Portable.bigint(), 'CONVERT(varchar(20), x)'],
    ['int', column('int'), 'int', Portable.integer(), 'CONVERT(varchar(11), x)'],
    ['smallint', column('smallint'), 'smallint', Portable.smallint(), 'CONVERT(varchar(6), x)'],
    ['tinyint', column('tinyint'), 'tinyint', Portable.smallint(), 'CONVERT(varchar(3), x)'],
    ['bit', column('bit'), 'bit', Portable.boolean(), "CASE x WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"],
    ['decimal(38,10)', column('decimal', { precision: 38, scale: 10 }), 'decimal(38,10)', Portable.decimal(38, 10), 'CONVERT(varchar(41), x)'],
    ['numeric(5,0)', column('numeric', { precision: 5, scale: 0 }), 'numeric(5,0)', Portable.decimal(5, 0), 'CONVERT(varchar(41), x)'],
    ['money', column('money'), 'money', Portable.decimal(19, 4), 'CONVERT(varchar(30), x, 2)'],
    ['smallmoney', column('smallmoney'), 'smallmoney', Portable.decimal(10, 4), 'CONVERT(varchar(30), x, 2)'],
    ['float', column('float'), 'float', Portable.float(8), 'x'],
    ['real', column('real'), 'real', Portable.float(4), 'x'],
    ['date', column('date'), 'date', Portable.date(), 'CONVERT(varchar(10), x, 23)'],
    ['time(7)', column('time', { scale: 7 }), 'time(7)', Portable.time(7), 'CONVERT(varchar(16), x)'],
    ['time(3)', column('time', { scale: 3 }), 'time(3)', Portable.time(3), 'CONVERT(varchar(16), x)'],
    ['datetime2(7)', column('datetime2', { scale: 7 }), 'datetime2(7)', Portable.timestamp(7), 'CONVERT(varchar(27), x, 121)'],
    ['datetime2(0)', column('datetime2', { scale: 0 }), 'datetime2(0)', Portable.timestamp(0), 'CONVERT(varchar(27), x, 121)'],
    ['datetime', column('datetime', { scale: 3 }), 'datetime', Portable.timestamp(3), 'CONVERT(varchar(23), x, 121)'],
    ['smalldatetime', column('smalldatetime'), 'smalldatetime', Portable.timestamp(0), 'CONVERT(varchar(19), x, 120)'],
    ['datetimeoffset(7)', column('datetimeoffset', { scale: 7 }), 'datetimeoffset(7)', Portable.timestamp(7, true), 'CONVERT(varchar(34), x, 121)'],
    ['char(10)', column('char', { maxLength: 10 }), 'char(10)', Portable.char(10), 'x'],
    ['nchar(10)', column('nchar', { maxLength: 20 }), 'nchar(10)', Portable.char(10), 'x'],
    ['varchar(40)', column('varchar', { maxLength: 40 }), 'varchar(40)', Portable.varchar(40), 'x'],
    ['varchar(max)', column('varchar', { maxLength: -1 }), 'varchar(max)', Portable.text(), 'x'],
    ['nvarchar(40)', column('nvarchar', { maxLength: 80 }), 'nvarchar(40)', Portable.varchar(40), 'x'],
    ['nvarchar(max)', column('nvarchar', { maxLength: -1 }), 'nvarchar(max)', Portable.text(), 'x'],
    ['text', column('text', { maxLength: 16 }), 'text', Portable.text(), 'CONVERT(nvarchar(max), x)'],
    ['ntext', column('ntext', { maxLength: 16 }), 'ntext', Portable.text(), 'CONVERT(nvarchar(max), x)'],
    ['xml', column('xml', { maxLength: -1 }), 'xml', Portable.text(), 'CONVERT(nvarchar(max), x)'],
    ['binary(16)', column('binary', { maxLength: 16 }), 'binary(16)', Portable.binary(16, true), "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['varbinary(100)', column('varbinary', { maxLength: 100 }), 'varbinary(100)', Portable.binary(100), "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['varbinary(max)', column('varbinary', { maxLength: -1 }), 'varbinary(max)', Portable.binary(), "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['image', column('image', { maxLength: 16 }), 'image', Portable.binary(), "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['rowversion', column('timestamp', { maxLength: 8 }), 'rowversion', Portable.binary(8, true), "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['uniqueidentifier', column('uniqueidentifier', { maxLength: 16 }), 'uniqueidentifier', Portable.uuid(), 'LOWER(CONVERT(char(36), x))'],
    ['geometry', column('geometry', { isClrType: true, maxLength: -1 }), 'geometry', Portable.text(), "'SRID=' + CONVERT(varchar(11), x.STSrid) + ';' + x.AsTextZM()"],
    ['geography', column('geography', { isClrType: true, maxLength: -1 }), 'geography', Portable.text(), "'SRID=' + CONVERT(varchar(11), x.STSrid) + ';' + x.AsTextZM()"],
    ['hierarchyid', column('hierarchyid', { isClrType: true, maxLength: 892 }), 'hierarchyid', Portable.text(), 'x.ToString()'],
    ['json (SQL Server 2025)', column('json', { maxLength: -1 }), 'json', Portable.json(false), 'CONVERT(nvarchar(max), x)'],
    ['vector (SQL Server 2025)', column('vector', { maxLength: 20 }), 'vector', Portable.json(false), 'CONVERT(nvarchar(max), x)'],
    ['a user CLR type', column('Money2', { isClrType: true, maxLength: 20 }), 'Money2', Portable.text(), 'x.ToString()'],
  ])('%s', (_name, catalog, sourceType, portableType, select) => {
    const plan = columnPlan(catalog);
    expect({ sourceType: plan.sourceType, portableType: plan.portableType, select: plan.select('x') }).toEqual({ sourceType, portableType, select });
    // The read plans from the definition's source type: the same plan.
    const replanned = planOfSourceType('c', plan.sourceType);
    expect({ sourceType: replanned.sourceType, portableType: replanned.portableType, select: replanned.select('x') }).toEqual({ sourceType, portableType, select });
  });

  it('renders float and real in JavaScript only: IEEE doubles travel exactly', () => {
    expect(columnPlan(column('float')).rendersInJs).toBe(true);
    expect(columnPlan(column('decimal', { precision: 38, scale: 10 })).rendersInJs).toBeUndefined();
  });

  it('says what the source changes on the way, for the type table; what a warehouse loses is the warehouse\'s to say', () => {
    expect(columnPlan(column('geography', { isClrType: true })).conversion).toMatch(/with its SRID/);
    expect(columnPlan(column('real')).conversion).toMatch(/exact double/);
    // Every digit of datetime2(7), time(7) and datetimeoffset(7), and the offset, travel: a warehouse keeping microseconds rounds them itself.
    expect(columnPlan(column('datetime2', { scale: 7 })).conversion).toBeUndefined();
    expect(columnPlan(column('time', { scale: 7 })).conversion).toBeUndefined();
    expect(columnPlan(column('datetimeoffset', { scale: 7 })).conversion).toBeUndefined();
  });

  it('refuses a system type it does not know, naming the column, as an error that stops only its table', () => {
    const refusal = (() => {
      try {
        columnPlan({ ...column('tensor'), name: 'embedding' });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(UnsupportedColumnTypeError);
    expect(isEngineError(refusal, 'statement-failed')).toBe(true);
    expect((refusal as Error).message).toBe('column embedding has type tensor, which the SQL Server source cannot read yet');
    expect(() => planOfSourceType('x', 'nvarchar(')).toThrow("'nvarchar(' is not a SQL Server type");
  });

  // sys.types names a user CLR type as its creator wrote it: such a name must not become a definition's source type.
  it.each(['Money2]; DROP TABLE t; --', 'Point (x int)', 'geo-point'])('refuses a user CLR type named %j, as a type it cannot read', (typeName) => {
    expect(() => columnPlan({ ...column(typeName, { isClrType: true }), name: 'shape' })).toThrow(UnsupportedColumnTypeError);
  });
});

/** What SQL Server returns for the column's read of one value (see tsql-expression.double.ts for the documented rules). */
const readOf = (sourceType: string, value: TsqlValue): string => textOf(evaluateTsql(planOfSourceType('c', sourceType).select('x'), { x: value }));

const variant = (base: Extract<TsqlValue, { type: 'sql_variant' }>['base']): TsqlValue => ({ type: 'sql_variant', base });
const at = { year: 2024, month: 1, day: 2, hour: 15, minute: 4, second: 5 };

describe('sql_variant: every base type read without losing digits', () => {
  // CONVERT(nvarchar, v) renders a variant's value in its base type's default style (CAST and CONVERT: float's
  // default keeps "a maximum of 6 digits", money's two decimals, datetime's "mon dd yyyy hh:miAM" drops seconds,
  // binary's turns bytes into characters). The expected texts are the documented lossless styles' forms.
  it.each<[string, TsqlValue, string]>([
    ['money with 4 decimals (style 2)', variant({ type: 'money', tenThousandths: 123456n }), '12.3456'],
    ['smallmoney with 4 decimals (style 2)', variant({ type: 'smallmoney', tenThousandths: -10001n }), '-1.0001'],
    ['datetime with its seconds and milliseconds (style 121)', variant({ type: 'datetime', ...at, fraction: '123' }), '2024-01-02 15:04:05.123'],
    ['smalldatetime as yyyy-mm-dd hh:mi:ss (style 120), not in the language-dependent default', variant({ type: 'smalldatetime', ...at, second: 0, fraction: '' }), '2024-01-02 15:04:00'],
    ['datetime2 with its 7 fractional digits (style 121)', variant({ type: 'datetime2', ...at, fraction: '1234567' }), '2024-01-02 15:04:05.1234567'],
    ['date as yyyy-mm-dd (style 23)', variant({ type: 'date', year: 2024, month: 1, day: 2 }), '2024-01-02'],
    ['varbinary as 0x and hex (style 1), not bytes as characters', variant({ type: 'varbinary', bytes: Buffer.from([0x00, 0x41, 0xff]) }), '0x0041FF'],
    ['binary as 0x and hex (style 1)', variant({ type: 'binary', bytes: Buffer.from([0x0a, 0x0d]) }), '0x0A0D'],
    ['an int in its default text', variant({ type: 'int', value: 42 }), '42'],
    ['a decimal in its default text, every digit', variant({ type: 'decimal', text: '12.3400' }), '12.3400'],
    ['a string as it is', variant({ type: 'text', text: "it's 9 o'clock" }), "it's 9 o'clock"],
  ])('%s', (_name, value, expected) => {
    expect(readOf('sql_variant', value)).toBe(expected);
  });

  it.each<[string, 'float' | 'real', number]>([
    ['float 0.1 + 0.2', 'float', 0.1 + 0.2],
    ['float 1/3', 'float', 1 / 3],
    ['float 123456789.123', 'float', 123456789.123],
    ['float 2^-1074', 'float', 5e-324],
    ['real 0.1 (its double is 0.10000000149011612)', 'real', Math.fround(0.1)],
  ])('%s reads back as the same double (style 3, "every distinct float or real value … a distinct character string")', (_name, type, double) => {
    expect(Number(readOf('sql_variant', variant({ type, value: double })))).toBe(double);
  });
});

describe('geometry and geography: Z and M travel', () => {
  // AsTextZM (geometry and geography): "the WKT representation … augmented with any Z (elevation) and M (measure)
  // values carried by the instance"; STAsText gives POINT (1 2) for POINT(1 2 3 4) (Microsoft's own example).
  it.each<['geometry' | 'geography', number]>([
    ['geometry', 0],
    ['geography', 4326],
  ])('%s keeps each point\'s Z and M', (type, srid) => {
    expect(readOf(type, { type, srid, shape: 'POINT', points: [[1, 2, 3, 4]] })).toBe(`SRID=${srid};POINT (1 2 3 4)`);
    expect(readOf(type, { type, srid, shape: 'LINESTRING', points: [[1, 2, 10], [3, 4, 20]] })).toBe(`SRID=${srid};LINESTRING (1 2 10, 3 4 20)`);
  });
});

describe('the type table', () => {
  it('lists every SQL Server type the source reads (docs/TYPES.md, generated from the samples of source-types.ts)', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'TYPES.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## SQL Server as a source'));
    const types = ['bigint', 'int', 'smallint', 'tinyint', 'bit', 'decimal', 'money', 'smallmoney', 'float', 'real', 'date', 'time', 'datetime2',
      'datetime', 'smalldatetime', 'datetimeoffset', 'char', 'nchar', 'varchar', 'nvarchar', 'text', 'ntext', 'xml', 'binary', 'varbinary', 'image',
      'rowversion', 'uniqueidentifier', 'sql_variant', 'geometry', 'geography', 'hierarchyid', 'json', 'vector'];
    const missing = types.filter((type) => !new RegExp('`' + type + '(\\(|`)').test(table));
    expect(missing).toEqual([]);
  });
});

describe('stagingPlanOf: a SQL Server staging column and the T-SQL that reads the pipeline text back', () => {
  it.each<[string, string, string]>([
    ['bigint', 'bigint', 'CONVERT(bigint, v)'],
    ['decimal(38,10)', 'decimal(38,10)', 'CONVERT(decimal(38,10), v)'],
    ['money', 'money', 'CONVERT(money, v)'],
    ['float', 'float', 'CONVERT(float, v)'],
    ['bit', 'bit', "CASE v WHEN 'true' THEN 1 WHEN 'false' THEN 0 END"],
    ['date', 'date', 'CONVERT(date, v, 23)'],
    ['time(7)', 'time(7)', 'CONVERT(time(7), v)'],
    ['datetime2(7)', 'datetime2(7)', 'CONVERT(datetime2(7), v, 121)'],
    ['datetime', 'datetime', 'CONVERT(datetime, v, 121)'],
    ['smalldatetime', 'smalldatetime', 'CONVERT(smalldatetime, v, 120)'],
    ['datetimeoffset(7)', 'datetimeoffset(7)', 'CONVERT(datetimeoffset(7), v, 121)'],
    ['nvarchar(40)', 'nvarchar(40)', 'v'],
    ['varchar(max)', 'varchar(max)', 'v'],
    ['xml', 'xml', 'CONVERT(xml, v)'],
    ['varbinary(max)', 'varbinary(max)', 'CONVERT(varbinary(max), SUBSTRING(v, 3, LEN(v)), 2)'],
    ['binary(16)', 'binary(16)', 'CONVERT(binary(16), SUBSTRING(v, 3, LEN(v)), 2)'],
    ['image', 'varbinary(max)', 'CONVERT(varbinary(max), SUBSTRING(v, 3, LEN(v)), 2)'],
    ['rowversion', 'binary(8)', 'CONVERT(binary(8), SUBSTRING(v, 3, LEN(v)), 2)'],
    ['uniqueidentifier', 'uniqueidentifier', 'CONVERT(uniqueidentifier, v)'],
    ['sql_variant', 'sql_variant', 'CONVERT(nvarchar(4000), v)'],
    ['hierarchyid', 'hierarchyid', 'hierarchyid::Parse(v)'],
    ['geography', 'geography', "geography::STGeomFromText(SUBSTRING(v, CHARINDEX(';', v) + 1, LEN(v)), CONVERT(int, SUBSTRING(v, 6, CHARINDEX(';', v) - 6)))"],
    ['json', 'nvarchar(max)', 'v'],
    ['vector', 'nvarchar(max)', 'v'],
    ['Money2', 'nvarchar(max)', 'v'],
  ])('%s is staged as %s', (sourceType, stagingType, fromText) => {
    const plan = stagingPlanOf('c', sourceType);
    expect({ stagingType: plan.stagingType, fromText: plan.fromText('v') }).toEqual({ stagingType, fromText });
  });
});

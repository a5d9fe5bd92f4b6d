import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { columnPlan, planOfSourceType, stagingPlanOf, type CatalogColumn } from './column-types';

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
  it.each<[string, CatalogColumn, string, string, string]>([
    ['bigint', column('bigint'), 'bigint', 'bigint', 'CONVERT(varchar(20), x)'],
    ['int', column('int'), 'int', 'integer', 'CONVERT(varchar(11), x)'],
    ['smallint', column('smallint'), 'smallint', 'smallint', 'CONVERT(varchar(6), x)'],
    ['tinyint', column('tinyint'), 'tinyint', 'smallint', 'CONVERT(varchar(3), x)'],
    ['bit', column('bit'), 'bit', 'boolean', "CASE x WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"],
    ['decimal(38,10)', column('decimal', { precision: 38, scale: 10 }), 'decimal(38,10)', 'numeric(38,10)', 'CONVERT(varchar(41), x)'],
    ['numeric(5,0)', column('numeric', { precision: 5, scale: 0 }), 'numeric(5,0)', 'numeric(5,0)', 'CONVERT(varchar(41), x)'],
    ['money', column('money'), 'money', 'numeric(19,4)', 'CONVERT(varchar(30), x, 2)'],
    ['smallmoney', column('smallmoney'), 'smallmoney', 'numeric(10,4)', 'CONVERT(varchar(30), x, 2)'],
    ['float', column('float'), 'float', 'double precision', 'x'],
    ['real', column('real'), 'real', 'real', 'x'],
    ['date', column('date'), 'date', 'date', 'CONVERT(varchar(10), x, 23)'],
    ['time(7)', column('time', { scale: 7 }), 'time(7)', 'time(6)', 'CONVERT(varchar(16), x)'],
    ['time(3)', column('time', { scale: 3 }), 'time(3)', 'time(3)', 'CONVERT(varchar(16), x)'],
    ['datetime2(7)', column('datetime2', { scale: 7 }), 'datetime2(7)', 'timestamp(6)', 'CONVERT(varchar(27), x, 121)'],
    ['datetime', column('datetime', { scale: 3 }), 'datetime', 'timestamp(3)', 'CONVERT(varchar(23), x, 121)'],
    ['smalldatetime', column('smalldatetime'), 'smalldatetime', 'timestamp(0)', 'CONVERT(varchar(19), x, 120)'],
    ['datetimeoffset(7)', column('datetimeoffset', { scale: 7 }), 'datetimeoffset(7)', 'timestamptz(6)', 'CONVERT(varchar(34), x, 121)'],
    ['char(10)', column('char', { maxLength: 10 }), 'char(10)', 'char(10)', 'x'],
    ['nchar(10)', column('nchar', { maxLength: 20 }), 'nchar(10)', 'char(10)', 'x'],
    ['varchar(40)', column('varchar', { maxLength: 40 }), 'varchar(40)', 'varchar(40)', 'x'],
    ['varchar(max)', column('varchar', { maxLength: -1 }), 'varchar(max)', 'text', 'x'],
    ['nvarchar(40)', column('nvarchar', { maxLength: 80 }), 'nvarchar(40)', 'varchar(40)', 'x'],
    ['nvarchar(max)', column('nvarchar', { maxLength: -1 }), 'nvarchar(max)', 'text', 'x'],
    ['text', column('text', { maxLength: 16 }), 'text', 'text', 'CONVERT(nvarchar(max), x)'],
    ['ntext', column('ntext', { maxLength: 16 }), 'ntext', 'text', 'CONVERT(nvarchar(max), x)'],
    ['xml', column('xml', { maxLength: -1 }), 'xml', 'text', 'CONVERT(nvarchar(max), x)'],
    ['binary(16)', column('binary', { maxLength: 16 }), 'binary(16)', 'bytea', "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['varbinary(max)', column('varbinary', { maxLength: -1 }), 'varbinary(max)', 'bytea', "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['image', column('image', { maxLength: 16 }), 'image', 'bytea', "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['rowversion', column('timestamp', { maxLength: 8 }), 'rowversion', 'bytea', "'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), x), 2)"],
    ['uniqueidentifier', column('uniqueidentifier', { maxLength: 16 }), 'uniqueidentifier', 'uuid', 'LOWER(CONVERT(char(36), x))'],
    ['sql_variant', column('sql_variant', { maxLength: 8016 }), 'sql_variant', 'text', 'CONVERT(nvarchar(4000), x)'],
    ['geometry', column('geometry', { isClrType: true, maxLength: -1 }), 'geometry', 'text', "'SRID=' + CONVERT(varchar(11), x.STSrid) + ';' + x.STAsText()"],
    ['geography', column('geography', { isClrType: true, maxLength: -1 }), 'geography', 'text', "'SRID=' + CONVERT(varchar(11), x.STSrid) + ';' + x.STAsText()"],
    ['hierarchyid', column('hierarchyid', { isClrType: true, maxLength: 892 }), 'hierarchyid', 'text', 'x.ToString()'],
    ['a user CLR type', column('Money2', { isClrType: true, maxLength: 20 }), 'Money2', 'text', 'x.ToString()'],
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

  it('says what changes on the way, for the README', () => {
    expect(columnPlan(column('datetime2', { scale: 7 })).conversion).toMatch(/7th fractional digit/);
    expect(columnPlan(column('datetime2', { scale: 6 })).conversion).toBeUndefined();
    expect(columnPlan(column('geography', { isClrType: true })).conversion).toMatch(/with its SRID/);
  });

  it('refuses a system type it does not know, naming the column', () => {
    expect(() => columnPlan({ ...column('vector'), name: 'embedding' })).toThrow('column embedding has type vector');
    expect(() => planOfSourceType('x', 'nvarchar(')).toThrow("'nvarchar(' is not a SQL Server type");
  });
});

describe('the README type table', () => {
  it('lists every SQL Server type the source reads', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8');
    const heading = readme.indexOf('### How each SQL Server type travels');
    expect(heading).toBeGreaterThan(0);
    const table = readme.slice(heading);
    const types = ['bigint', 'int', 'smallint', 'tinyint', 'bit', 'decimal', 'numeric', 'money', 'smallmoney', 'float', 'real', 'date', 'time', 'datetime2',
      'datetime', 'smalldatetime', 'datetimeoffset', 'char', 'nchar', 'varchar', 'nvarchar', 'text', 'ntext', 'xml', 'binary', 'varbinary', 'image',
      'rowversion', 'uniqueidentifier', 'sql_variant', 'geometry', 'geography', 'hierarchyid'];
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
    ['Money2', 'nvarchar(max)', 'v'],
  ])('%s is staged as %s', (sourceType, stagingType, fromText) => {
    const plan = stagingPlanOf('c', sourceType);
    expect({ stagingType: plan.stagingType, fromText: plan.fromText('v') }).toEqual({ stagingType, fromText });
  });
});

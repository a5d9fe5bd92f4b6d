import { sourceTypeTable } from '@svc/engines';
import { SQLSERVER_TYPE_SAMPLES, sqlServerSourceTypes } from './source-types';

describe('the SQL Server source type table', () => {
  it('has a sample of every type columnPlan reads', () => {
    const typeNames = SQLSERVER_TYPE_SAMPLES.map(({ column }) => column.typeName);
    const systemTypes = ['bigint', 'int', 'smallint', 'tinyint', 'bit', 'decimal', 'money', 'smallmoney', 'float', 'real', 'date', 'time', 'datetime2',
      'datetime', 'smalldatetime', 'datetimeoffset', 'char', 'nchar', 'varchar', 'nvarchar', 'text', 'ntext', 'xml', 'binary', 'varbinary', 'image',
      'timestamp', 'uniqueidentifier', 'sql_variant', 'geometry', 'geography', 'hierarchyid', 'json', 'vector'];
    expect(systemTypes.filter((type) => !typeNames.includes(type))).toEqual([]);
    expect(SQLSERVER_TYPE_SAMPLES.some(({ column }) => column.isClrType && !['geometry', 'geography', 'hierarchyid'].includes(column.typeName))).toBe(true);
  });

  it('names each type once, in SQL Server\'s spelling, with what travels and what changes', () => {
    const mappings = sqlServerSourceTypes();
    expect(new Set(mappings.map((mapping) => mapping.engineType)).size).toBe(mappings.length);
    expect(sourceTypeTable(mappings)).toMatchSnapshot();
  });
});

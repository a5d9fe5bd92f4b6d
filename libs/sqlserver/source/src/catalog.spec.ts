import { Portable } from '@svc/contracts';
import { isEngineError } from '@svc/engines';
import { UnsupportedColumnTypeError } from '@svc/sqlserver/common';
import { definitionsOf, type CatalogRow } from './catalog';

const row = (table: string, name: string, typeName: string, extra: Partial<CatalogRow> = {}): CatalogRow => ({
  table_schema: 'dbo',
  table_name: table,
  column_name: name,
  type_name: typeName,
  is_clr_type: 0,
  max_length: 0,
  precision: 0,
  scale: 0,
  is_nullable: 1,
  has_default: 0,
  key_ordinal: null,
  estimated_rows: '12',
  ...extra,
});

describe('definitionsOf: catalog rows as table definitions', () => {
  it('gathers columns per table in ordinal order and the key in key order', () => {
    const definitions = definitionsOf([
      row('lines', 'line', 'int', { key_ordinal: 2, is_nullable: 0 }),
      row('lines', 'order_id', 'bigint', { key_ordinal: 1, is_nullable: 0 }),
      row('lines', 'note', 'nvarchar', { max_length: 80, has_default: 1 }),
      row('log', 'at', 'datetime2', { scale: 7, estimated_rows: null }),
    ]);
    expect(definitions).toEqual([
      {
        table: { schema: 'dbo', name: 'lines' },
        columns: [
          { name: 'line', sourceType: 'int', portableType: Portable.integer(), nullable: false },
          { name: 'order_id', sourceType: 'bigint', portableType: Portable.bigint(), nullable: false },
          { name: 'note', sourceType: 'nvarchar(40)', portableType: Portable.varchar(40), nullable: true, hasDefault: true },
        ],
        primaryKey: ['order_id', 'line'],
        estimatedRows: 12,
      },
      {
        table: { schema: 'dbo', name: 'log' },
        columns: [{ name: 'at', sourceType: 'datetime2(7)', portableType: Portable.timestamp(7), nullable: true }],
        primaryKey: [],
        estimatedRows: 0,
      },
    ]);
  });

  /*
   * sys.columns.collation_name: "Name of the collation of the column if character-based; otherwise NULL."
   * (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-columns-transact-sql)
   */
  it('carries the collation of character columns, and none for other columns', () => {
    const [definition] = definitionsOf([
      row('codes', 'code', 'varchar', { max_length: 10, key_ordinal: 1, is_nullable: 0, collation_name: 'Latin1_General_CS_AS' }),
      row('codes', 'label', 'nvarchar', { max_length: 80, collation_name: 'Cyrillic_General_CI_AS' }),
      row('codes', 'n', 'int', { collation_name: null }),
    ]);
    expect(definition?.columns).toEqual([
      { name: 'code', sourceType: 'varchar(10)', portableType: Portable.varchar(10), nullable: false, collation: 'Latin1_General_CS_AS' },
      { name: 'label', sourceType: 'nvarchar(40)', portableType: Portable.varchar(40), nullable: true, collation: 'Cyrillic_General_CI_AS' },
      { name: 'n', sourceType: 'int', portableType: Portable.integer(), nullable: true },
    ]);
  });

  // TYPE_NAME(system_type_id) names a type SQL Server added after this version of the service (as json and
  // vector came with SQL Server 2025): one table has such a column, the others do not.
  const catalog = [
    row('orders', 'id', 'int', { key_ordinal: 1, is_nullable: 0 }),
    row('orders', 'shape', 'tensor', { max_length: 64 }),
    row('lines', 'id', 'int', { key_ordinal: 1, is_nullable: 0 }),
    row('lines', 'doc', 'json', { max_length: -1 }),
  ];

  it('discovers every table when one has a column of a type it does not know, listing that column as text', () => {
    const definitions = definitionsOf(catalog, 'list');
    expect(definitions.map((definition) => definition.table.name)).toEqual(['orders', 'lines']);
    expect(definitions[0]?.columns[1]).toEqual({ name: 'shape', sourceType: 'tensor', portableType: Portable.text(), nullable: true });
    expect(definitions[1]?.columns[1]).toEqual({ name: 'doc', sourceType: 'json', portableType: Portable.json(false), nullable: true });
  });

  it('refuses to describe that table for a read, naming table, column and type, as an error that stops that table only', () => {
    const describe = (name: string) => () => definitionsOf(catalog.filter((entry) => entry.table_name === name));
    expect(describe('lines')).not.toThrow();
    expect(describe('orders')).toThrow(UnsupportedColumnTypeError);
    expect(describe('orders')).toThrow('[dbo].[orders]: column shape has type tensor, which the SQL Server source cannot read yet');
    let refusal: unknown;
    try {
      describe('orders')();
    } catch (error) {
      refusal = error;
    }
    // 'statement-failed' is what the failure classifier stops a single table for; serviceWorded gives its message as the reason.
    expect(isEngineError(refusal, 'statement-failed') && refusal.serviceWorded).toBe(true);
  });
});

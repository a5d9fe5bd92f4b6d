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
          { name: 'line', sourceType: 'int', portableType: 'integer', nullable: false },
          { name: 'order_id', sourceType: 'bigint', portableType: 'bigint', nullable: false },
          { name: 'note', sourceType: 'nvarchar(40)', portableType: 'varchar(40)', nullable: true, hasDefault: true },
        ],
        primaryKey: ['order_id', 'line'],
        estimatedRows: 12,
      },
      {
        table: { schema: 'dbo', name: 'log' },
        columns: [{ name: 'at', sourceType: 'datetime2(7)', portableType: 'timestamp(6)', nullable: true }],
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
      { name: 'code', sourceType: 'varchar(10)', portableType: 'varchar(10)', nullable: false, collation: 'Latin1_General_CS_AS' },
      { name: 'label', sourceType: 'nvarchar(40)', portableType: 'varchar(40)', nullable: true, collation: 'Cyrillic_General_CI_AS' },
      { name: 'n', sourceType: 'int', portableType: 'integer', nullable: true },
    ]);
  });
});

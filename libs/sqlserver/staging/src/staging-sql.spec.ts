import { Portable, type TableDefinition } from '@svc/contracts';
import {
  APPLICATION_LOCK_SQL,
  CONTROL_SCHEMA_SQL,
  CURRENT_SEED_SQL,
  FENCE_STALE_SQL,
  FORGET_APPLIED_BATCHES_SQL,
  HAS_APPLIED_SQL,
  NAMED_BY_EARLIER_VERSION_SQL,
  OWNED_TABLE_SQL,
  RAISE_FENCE_SQL,
  RECORD_BATCH_SQL,
  RECORD_OWNED_TABLE_SQL,
  SHARED_TABLE_SQL,
  START_SEED_SQL,
  TABLE_COLUMNS_SQL,
  addColumnsSql,
  batchRowsColumns,
  createBatchRowsSql,
  createSchemaSql,
  createTableSql,
  deleteChangedKeysSql,
  insertRowsSql,
  tableLockResource,
  truncateSql,
} from './staging-sql';

// Generated T-SQL is reviewed as text: these snapshots are the place to read it. No SQL Server runs in CI.
const lines: TableDefinition = {
  table: { schema: 'sales', name: 'Order ]Lines' },
  columns: [
    { name: 'order_id', sourceType: 'bigint', portableType: Portable.bigint(), nullable: false },
    { name: 'at', sourceType: 'datetime2(7)', portableType: Portable.timestamp(7), nullable: false },
    { name: 'amount', sourceType: 'decimal(38,10)', portableType: Portable.decimal(38, 10), nullable: true },
    { name: 'shipped', sourceType: 'bit', portableType: Portable.boolean(), nullable: true },
    { name: 'blob', sourceType: 'varbinary(max)', portableType: Portable.binary(), nullable: true },
    { name: 'version', sourceType: 'rowversion', portableType: Portable.binary(8, true), nullable: false },
    { name: 'place', sourceType: 'geography', portableType: Portable.text(), nullable: true },
    { name: 'note', sourceType: 'nvarchar(max)', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['order_id', 'at'],
  estimatedRows: 0,
};

describe('generated T-SQL (SQL Server staging)', () => {
  it('creates the control schema, each object only when missing', () => {
    expect(CONTROL_SCHEMA_SQL.join(';\n\n')).toMatchSnapshot();
  });

  it('takes application locks owned by the transaction', () => {
    expect(APPLICATION_LOCK_SQL).toMatchSnapshot();
  });

  it('fences epochs and logs batches', () => {
    expect([RAISE_FENCE_SQL, FENCE_STALE_SQL, RECORD_BATCH_SQL, HAS_APPLIED_SQL, FORGET_APPLIED_BATCHES_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('records the tables it creates, and reads what earlier versions named', () => {
    expect([OWNED_TABLE_SQL, RECORD_OWNED_TABLE_SQL, NAMED_BY_EARLIER_VERSION_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('keeps a seed record per replication and table', () => {
    expect([SHARED_TABLE_SQL, START_SEED_SQL, CURRENT_SEED_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('creates and widens staging tables with plain types (rowversion as binary(8))', () => {
    expect([TABLE_COLUMNS_SQL, createSchemaSql(lines.table), createTableSql(lines), addColumnsSql(lines.table, [lines.columns[2], lines.columns[6]]), truncateSql(lines.table)].join(';\n\n')).toMatchSnapshot();
  });

  it('applies a batch set-based from its rows as text', () => {
    expect([createBatchRowsSql(lines, true), deleteChangedKeysSql(lines), insertRowsSql(lines, true), insertRowsSql(lines, false)].join(';\n\n')).toMatchSnapshot();
  });

  it('creates character columns with the source collation and compares character keys under it', () => {
    const codes: TableDefinition = {
      table: { schema: 'dbo', name: 'codes' },
      columns: [
        { name: 'code', sourceType: 'varchar(10)', portableType: Portable.varchar(10), nullable: false, collation: 'Latin1_General_CS_AS' },
        { name: 'region', sourceType: 'nchar(2)', portableType: Portable.char(2), nullable: false },
        { name: 'n', sourceType: 'int', portableType: Portable.integer(), nullable: false },
      ],
      primaryKey: ['code', 'region', 'n'],
      estimatedRows: 0,
    };
    expect([createTableSql(codes), deleteChangedKeysSql(codes)].join(';\n\n')).toMatchSnapshot();
  });

  it('names the batch rows positionally, out of reach of source column names', () => {
    expect(batchRowsColumns(lines, true)).toEqual(['op', 'c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    expect(batchRowsColumns(lines, false)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
  });

  it('locks each table by a resource of bounded length', () => {
    const long = { schema: 's'.repeat(128), name: 'n'.repeat(128) };
    expect(tableLockResource(long).length).toBeLessThanOrEqual(255);
    expect(tableLockResource(lines.table)).toMatchSnapshot();
    expect(tableLockResource({ schema: 'a.b', name: 'c' })).not.toBe(tableLockResource({ schema: 'a', name: 'b.c' }));
  });
});

import { keyColumnsGathered } from './sqlserver-access';

describe('keyColumnsGathered (SQL Server listing: one row per key column)', () => {
  it('gathers the key columns of each table in order, and gives a table without a key none', () => {
    const rows = [
      { schema: 'dbo', name: 'log', key_column: null, estimated_rows: 5 },
      { schema: 'sales', name: 'orders', key_column: 'region', estimated_rows: '12' },
      { schema: 'sales', name: 'orders', key_column: 'id', estimated_rows: '12' },
      { schema: 'sales', name: 'people', key_column: 'id', estimated_rows: null },
    ];
    expect(keyColumnsGathered(rows)).toEqual([
      { table: { schema: 'dbo', name: 'log' }, primaryKey: [], estimatedRows: 5 },
      { table: { schema: 'sales', name: 'orders' }, primaryKey: ['region', 'id'], estimatedRows: 12 },
      { table: { schema: 'sales', name: 'people' }, primaryKey: ['id'], estimatedRows: 0 },
    ]);
  });
});

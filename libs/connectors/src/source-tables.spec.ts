import { keyColumnsGathered } from './source-tables';

describe('keyColumnsGathered (SQL Server listing: one row per key column)', () => {
  it('gathers the key columns of each table in order, and gives a table without a key none', () => {
    const rows = [
      { schema: 'dbo', name: 'log', key_column: null, estimated_rows: 5 },
      { schema: 'sales', name: 'orders', key_column: 'region', estimated_rows: '12' },
      { schema: 'sales', name: 'orders', key_column: 'id', estimated_rows: '12' },
      { schema: 'sales', name: 'people', key_column: 'id', estimated_rows: null },
    ];
    expect(keyColumnsGathered(rows)).toEqual([
      { schema: 'dbo', name: 'log', primary_key: [], estimated_rows: 5 },
      { schema: 'sales', name: 'orders', primary_key: ['region', 'id'], estimated_rows: '12' },
      { schema: 'sales', name: 'people', primary_key: ['id'], estimated_rows: null },
    ]);
  });
});

import { Portable, type ColumnDefinition, type TableDefinition } from '@svc/contracts';
import { projectOntoColumns } from './schema-projection';

function column(name: string): ColumnDefinition {
  return { name, sourceType: 'text', portableType: Portable.text(), nullable: true };
}

const orders: TableDefinition = {
  table: { schema: 'sales', name: 'orders' },
  columns: [column('region'), column('id'), column('note'), column('added later'), column('amount')],
  primaryKey: ['region', 'id'],
  estimatedRows: 42,
};

const names = (definition: TableDefinition) => definition.columns.map((item) => item.name);

describe('projectOntoColumns', () => {
  it('keeps only the columns staging has, in source order, whatever order staging lists them in', () => {
    const projected = projectOntoColumns(orders, ['amount', 'id', 'region', 'note']);
    expect(names(projected)).toEqual(['region', 'id', 'note', 'amount']);
    expect(projected.columns[3]).toBe(orders.columns[4]);
  });

  it('keeps the primary key columns even when staging lacks them', () => {
    expect(names(projectOntoColumns(orders, ['note']))).toEqual(['region', 'id', 'note']);
  });

  it('ignores staging columns the source no longer has', () => {
    expect(names(projectOntoColumns(orders, ['region', 'id', 'dropped in source']))).toEqual(['region', 'id']);
  });

  it('leaves the definition whole when staging has every column, and everything but the columns unchanged', () => {
    const projected = projectOntoColumns(orders, names(orders));
    expect(projected).toEqual(orders);
    expect(projectOntoColumns(orders, ['id'])).toMatchObject({ table: orders.table, primaryKey: orders.primaryKey, estimatedRows: 42 });
  });

  it('can leave nothing of a table without a primary key whose staging columns are all gone from the source', () => {
    expect(projectOntoColumns({ ...orders, primaryKey: [] }, ['other']).columns).toEqual([]);
  });

  it('does not change the definition it was given', () => {
    projectOntoColumns(orders, ['id']);
    expect(orders.columns).toHaveLength(5);
  });
});

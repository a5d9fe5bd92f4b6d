import type { ListedTable } from '@svc/contracts';
import { admitWithoutCollisions, warehouseNameCollisions } from './table-collisions';

const listed = (schema: string, name: string, keyed = true): ListedTable => ({ table: { schema, name }, primaryKey: keyed ? ['id'] : [], estimatedRows: 0 });

describe('warehouseNameCollisions', () => {
  const tables = [listed('public', 'sales_orders'), listed('sales', 'orders'), listed('public', 'customers'), listed('dbo', 'customers'), listed('crm', 'people')];

  it('names the tables that would share a warehouse table, and the table', () => {
    expect(warehouseNameCollisions({ tablesToInclude: 'All' }, tables)).toEqual([
      '{TablesToInclude}: tables [public].[sales_orders], [sales].[orders] would all be loaded into warehouse table sales_orders: leave all but one of them out',
      '{TablesToInclude}: tables [public].[customers], [dbo].[customers] would all be loaded into warehouse table customers: leave all but one of them out',
    ]);
  });

  it('is empty when the list leaves one of each pair out', () => {
    expect(warehouseNameCollisions({ tablesToInclude: ['[sales].[orders]', '[public].[customers]', '[crm].[people]'] }, tables)).toEqual([]);
  });

  it('compares names case-insensitively (Redshift folds identifiers)', () => {
    const mixed = [listed('public', 'Sales_Orders'), listed('sales', 'orders')];
    expect(warehouseNameCollisions({ tablesToInclude: 'All' }, mixed)).toHaveLength(1);
  });

  it('counts tables the reseeding schedule brings in', () => {
    const config = {
      tablesToInclude: ['[sales].[orders]'],
      reseedingSchedule: { noPkTablesToInclude: ['[public].[sales_orders]'], pkTablesToInclude: [], fromTime: '12:00:00 AM', toTime: '11:59:59 PM', repeatIntervalInMinutes: 60 },
    };
    const withKeyless = [listed('public', 'sales_orders', false), listed('sales', 'orders')];
    expect(warehouseNameCollisions(config, withKeyless)).toHaveLength(1);
  });
});

describe('admitWithoutCollisions (discovery)', () => {
  const discovered = (tableName: string) => ({ tableName, tracked: true, rowsEstimated: 0 });
  const selected = [discovered('[public].[sales_orders]'), discovered('[sales].[orders]'), discovered('[public].[customers]')];

  it('keeps the table already replicated and refuses the newcomer that would share its warehouse table', () => {
    const { admitted, refused } = admitWithoutCollisions(selected, ['[public].[sales_orders]', '[public].[customers]']);
    expect(admitted.map((table) => table.tableName)).toEqual(['[public].[sales_orders]', '[public].[customers]']);
    expect(refused).toEqual([
      {
        tableName: '[sales].[orders]',
        reason: '[sales].[orders] is not replicated: [public].[sales_orders], [sales].[orders] would all be loaded into warehouse table sales_orders',
      },
    ]);
  });

  it('refuses every table of a group none of which is replicated yet', () => {
    const { admitted, refused } = admitWithoutCollisions(selected, []);
    expect(admitted.map((table) => table.tableName)).toEqual(['[public].[customers]']);
    expect(refused.map((table) => table.tableName)).toEqual(['[public].[sales_orders]', '[sales].[orders]']);
  });

  it('admits everything when nothing collides', () => {
    expect(admitWithoutCollisions(selected.slice(1), []).admitted).toHaveLength(2);
  });
});

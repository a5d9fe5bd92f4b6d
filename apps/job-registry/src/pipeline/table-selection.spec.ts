import { Portable, type TableDefinition } from '@svc/contracts';
import { isScheduledForReseed, selectTables } from './table-selection';

const definition = (schema: string, name: string, keyed: boolean): TableDefinition => ({
  table: { schema, name },
  columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }],
  primaryKey: keyed ? ['id'] : [],
  estimatedRows: 10,
});

const tables = [definition('public', 'orders', true), definition('public', 'log', false), definition('sales', 'products', true)];

describe('selectTables', () => {
  it('selects a table whose name holds a ], as the API writes it', () => {
    const odd = [definition('public', 'a]b', true), definition('public', 'a', true)];
    expect(selectTables({ tablesToInclude: ['[public].[a]]b]'] }, odd)).toEqual([{ tableName: '[public].[a]]b]', tracked: true, rowsEstimated: 10 }]);
  });

  it('tracks keyed tables of All and seeds tables without a key', () => {
    expect(selectTables({ tablesToInclude: 'All' }, tables)).toEqual([
      { tableName: '[public].[orders]', tracked: true, rowsEstimated: 10 },
      { tableName: '[public].[log]', tracked: false, rowsEstimated: 10 },
      { tableName: '[sales].[products]', tracked: true, rowsEstimated: 10 },
    ]);
  });

  it('adds scheduled tables outside TablesToInclude, untracked', () => {
    const config = {
      tablesToInclude: ['[public].[orders]'],
      reseedingSchedule: { noPkTablesToInclude: ['[public].[log]'], pkTablesToInclude: ['[sales].[products]'], fromTime: '01:00:00 AM', toTime: '02:00:00 AM', repeatIntervalInMinutes: 60 },
    };
    expect(selectTables(config, tables)).toEqual([
      { tableName: '[public].[orders]', tracked: true, rowsEstimated: 10 },
      { tableName: '[public].[log]', tracked: false, rowsEstimated: 10 },
      { tableName: '[sales].[products]', tracked: false, rowsEstimated: 10 },
    ]);
    expect(isScheduledForReseed(config, '[sales].[products]', false)).toBe(true);
    expect(isScheduledForReseed(config, '[public].[orders]', true)).toBe(false);
  });

  it('matches names case-insensitively and skips what is not selected', () => {
    expect(selectTables({ tablesToInclude: ['[PUBLIC].[Orders]'] }, tables).map((t) => t.tableName)).toEqual(['[public].[orders]']);
  });
});

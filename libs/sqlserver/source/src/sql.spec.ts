import { Portable, type TableDefinition } from '@svc/contracts';
import { DISCOVER_COLUMNS_SQL } from './catalog-sql';
import { CURRENT_VERSION_SQL, changeWindowSql, netChangesSql, snapshotSelectSql } from './read-sql';
import {
  ALLOW_SNAPSHOT_ISOLATION_SQL,
  MIN_VALID_VERSION_SQL,
  SNAPSHOT_ISOLATION_STATE_SQL,
  disableTableTrackingSql,
  enableDatabaseTrackingSql,
  enableTableTrackingSql,
} from './tracking-sql';

// Generated T-SQL is reviewed as text: these snapshots are the place to read it. No SQL Server runs in CI.
const orderLines: TableDefinition = {
  table: { schema: 'sales', name: 'Order ]Lines[' },
  columns: [
    { name: 'order_id', sourceType: 'bigint', portableType: Portable.bigint(), nullable: false },
    { name: 'line', sourceType: 'smallint', portableType: Portable.smallint(), nullable: false },
    { name: 'amount', sourceType: 'decimal(38,10)', portableType: Portable.decimal(38, 10), nullable: true },
    { name: 'price', sourceType: 'money', portableType: Portable.decimal(19, 4), nullable: true },
    { name: 'ratio', sourceType: 'float', portableType: Portable.float(8), nullable: true },
    { name: 'shipped', sourceType: 'bit', portableType: Portable.boolean(), nullable: true },
    { name: 'note', sourceType: 'nvarchar(max)', portableType: Portable.text(), nullable: true },
    { name: 'at', sourceType: 'datetime2(7)', portableType: Portable.timestamp(7), nullable: true },
    { name: 'at_zone', sourceType: 'datetimeoffset(7)', portableType: Portable.timestamp(7, true), nullable: true },
    { name: 'during', sourceType: 'time(7)', portableType: Portable.time(7), nullable: true },
    { name: 'on_day', sourceType: 'date', portableType: Portable.date(), nullable: true },
    { name: 'blob', sourceType: 'varbinary(max)', portableType: Portable.binary(), nullable: true },
    { name: 'version', sourceType: 'rowversion', portableType: Portable.binary(8, true), nullable: false },
    { name: 'uid', sourceType: 'uniqueidentifier', portableType: Portable.uuid(), nullable: true },
    { name: 'doc', sourceType: 'xml', portableType: Portable.text(), nullable: true },
    { name: 'anything', sourceType: 'sql_variant', portableType: Portable.text(), nullable: true },
    { name: 'place', sourceType: 'geography', portableType: Portable.text(), nullable: true },
    { name: 'node', sourceType: 'hierarchyid', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['order_id', 'line'],
  estimatedRows: 0,
};

describe('generated T-SQL (SQL Server source)', () => {
  it('discovers tables and their columns', () => {
    expect(DISCOVER_COLUMNS_SQL).toMatchSnapshot();
  });

  it.each(['12 Hours', '2 Days', '8 Days'] as const)('enables Change Tracking on the database, keeping a longer retention (%s)', (retention) => {
    expect(enableDatabaseTrackingSql(retention)).toMatchSnapshot();
  });

  it('allows snapshot isolation and reads its state', () => {
    expect([ALLOW_SNAPSHOT_ISOLATION_SQL, SNAPSHOT_ISOLATION_STATE_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('enables and disables Change Tracking on a table', () => {
    expect([enableTableTrackingSql(orderLines.table), disableTableTrackingSql(orderLines.table)].join(';\n\n')).toMatchSnapshot();
  });

  it('reads the versions', () => {
    expect([CURRENT_VERSION_SQL, MIN_VALID_VERSION_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('reads a snapshot with every value rendered as text', () => {
    expect(snapshotSelectSql(orderLines)).toMatchSnapshot();
  });

  it('bounds a change window', () => {
    expect(changeWindowSql(orderLines)).toMatchSnapshot();
  });

  it('reads net changes joined to the current rows', () => {
    expect(netChangesSql(orderLines)).toMatchSnapshot();
  });

  it('quotes names with ] in every statement', () => {
    expect(netChangesSql(orderLines)).toContain('[sales].[Order ]]Lines[]');
    expect(enableTableTrackingSql(orderLines.table)).toContain('ALTER TABLE [sales].[Order ]]Lines[] ENABLE CHANGE_TRACKING');
  });
});

import type { TableDefinition } from '@svc/contracts';
import { DISCOVER_TABLES_SQL } from './catalog-sql';
import { qualifiedName, trackingNames } from './identifiers';
import { purgeChangesSql } from './purge-sql';
import { changeWindowEndSql, netChangesCopySql, snapshotCopySql } from './read-sql';
import {
  DROP_CAPTURE_TRIGGERS_SQL,
  captureFunctionSql,
  captureTriggersSql,
  createChangeTableSql,
  dropCaptureFunctionSql,
  dropChangeTableSql,
  type KeyColumn,
} from './tracking-sql';
import { portableTypeOfPostgres } from '@svc/postgres/common';

// Generated SQL is reviewed as text: these snapshots are the place to read it.
const orderLines: TableDefinition = {
  table: { schema: 'sales', name: 'Order "Lines"' },
  columns: [
    { name: 'order_id', sourceType: 'bigint', portableType: portableTypeOfPostgres('bigint'), nullable: false },
    { name: 'line', sourceType: 'smallint', portableType: portableTypeOfPostgres('smallint'), nullable: false },
    { name: 'mood', sourceType: 'mood', portableType: portableTypeOfPostgres('text'), nullable: true },
    { name: 'amount', sourceType: 'numeric(38,10)', portableType: portableTypeOfPostgres('numeric(38,10)'), nullable: true },
  ],
  primaryKey: ['order_id', 'line'],
  estimatedRows: 0,
};
const keys: KeyColumn[] = [
  { name: 'order_id', type: 'bigint' },
  { name: 'line', type: 'smallint' },
];
const names = trackingNames(orderLines.table);

describe('generated SQL', () => {
  it('discovers tables', () => {
    expect(DISCOVER_TABLES_SQL).toMatchSnapshot();
  });

  it('creates the change table', () => {
    expect(createChangeTableSql(names, keys).join(';\n\n')).toMatchSnapshot();
  });

  it('captures changes with one statement per event', () => {
    expect(captureFunctionSql(orderLines.table, names, keys)).toMatchSnapshot();
    expect(captureTriggersSql(qualifiedName(orderLines.table), names).join(';\n')).toMatchSnapshot();
  });

  it('releases change capture', () => {
    expect([DROP_CAPTURE_TRIGGERS_SQL, dropCaptureFunctionSql(names), dropChangeTableSql(names)].join(';\n\n')).toMatchSnapshot();
  });

  it('reads a snapshot', () => {
    expect(snapshotCopySql(orderLines)).toMatchSnapshot();
  });

  it('reads net changes', () => {
    expect(changeWindowEndSql(orderLines)).toMatchSnapshot();
    expect(netChangesCopySql(orderLines, 1200n, 1250n)).toMatchSnapshot();
  });

  it('purges changes', () => {
    expect(purgeChangesSql(orderLines.table)).toMatchSnapshot();
  });

  it('quotes the dollar-quoted function body with a tag that does not occur in it', () => {
    const sneaky: KeyColumn[] = [{ name: 'x$capture$y', type: 'integer' }];
    const sql = captureFunctionSql({ schema: 'public', name: 't' }, trackingNames({ schema: 'public', name: 't' }), sneaky);
    expect(sql).toContain('as $capture1$');
    expect(sql.trimEnd().endsWith('$capture1$')).toBe(true);
  });
});

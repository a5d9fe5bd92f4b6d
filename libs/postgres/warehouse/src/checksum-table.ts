import type { ChecksumColumn, ChecksumTable } from '@svc/engines';
import type { ColumnDefinition } from '@svc/contracts';
import { quoteIdent } from './identifiers';
import { declaredType } from './table-ddl';
import { SystemColumns, type TableLayout } from './table-layout';

const ALIAS = 't';

function checksumColumn(column: ColumnDefinition): ChecksumColumn {
  return { sql: `${ALIAS}.${quoteIdent(column.name)}`, type: column.portableType, declaredType: declaredType(column) };
}

/** What validation reads of a warehouse table: the source's columns, and of a Type2 table only the current rows. */
export function checksumTable(layout: TableLayout): ChecksumTable {
  const byName = new Map(layout.columns.map((column) => [column.name, column]));
  return {
    from: `${layout.qualifiedTarget} AS ${ALIAS}`,
    where: layout.history === 'type2' ? `${ALIAS}.${quoteIdent(SystemColumns.isCurrent)}` : null,
    columns: layout.columns.map(checksumColumn),
    keyColumns: layout.keyColumns.map((name) => {
      const column = byName.get(name);
      if (column === undefined) throw new Error(`key column ${name} is not a column of ${layout.target}`);
      return checksumColumn(column);
    }),
  };
}

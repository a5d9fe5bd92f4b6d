import { hasPrimaryKey, tableKey, type ListedTable, type ReplicationConfig, type TableSelection } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';

/** The table lists of a configuration, by the field path the caller knows them under. */
export type TableListField = 'tablesToInclude' | 'reseedingSchedule.noPkTablesToInclude' | 'reseedingSchedule.pkTablesToInclude';

export const TABLE_LIST_FIELDS: readonly TableListField[] = ['tablesToInclude', 'reseedingSchedule.noPkTablesToInclude', 'reseedingSchedule.pkTablesToInclude'];

type Selection = Pick<ReplicationConfig, 'tablesToInclude' | 'reseedingSchedule'>;

/**
 * Field errors for tables a list names that the replication would never move (seed §2.1), so that a Create or
 * an Alter refuses them instead of answering 200 and doing nothing: a table the source does not have, a table
 * with a primary key in NoPkTablesToInclude, one without a key in PkTablesToInclude, and one in
 * PkTablesToInclude that TablesToInclude already tracks. Names are matched as table selection matches them
 * (case-insensitively); there are no patterns, `All` is the only word that stands for many tables.
 */
export function tableListProblems(selection: Selection, tables: readonly ListedTable[], fields: readonly TableListField[] = TABLE_LIST_FIELDS): string[] {
  const byKey = new Map(tables.map((table) => [tableKey(table.table).toLowerCase(), table]));
  const schedule = selection.reseedingSchedule;
  const problems: string[] = [];
  const check = (field: TableListField, list: TableSelection | undefined, unfit: (table: ListedTable, key: string) => string | null) => {
    if (!fields.includes(field) || list === undefined || list === 'All') return;
    const missing = list.filter((key) => !byKey.has(key.toLowerCase()));
    if (missing.length) problems.push(`${label(field)}: ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist in the source`);
    for (const key of list) {
      const table = byKey.get(key.toLowerCase());
      const reason = table === undefined ? null : unfit(table, key);
      if (reason !== null) problems.push(`${label(field)}: ${reason}`);
    }
  };
  check('tablesToInclude', selection.tablesToInclude, () => null);
  check('reseedingSchedule.noPkTablesToInclude', schedule?.noPkTablesToInclude, (table, key) =>
    hasPrimaryKey(table) ? `${key} has a primary key: list it in PkTablesToInclude` : null,
  );
  check('reseedingSchedule.pkTablesToInclude', schedule?.pkTablesToInclude, (table, key) => {
    if (!hasPrimaryKey(table)) return `${key} has no primary key: list it in NoPkTablesToInclude`;
    return isListed(selection.tablesToInclude, key) ? `${key} is in TablesToInclude, so it is tracked: PkTablesToInclude is for keyed tables outside it` : null;
  });
  return problems;
}

function isListed(list: TableSelection, key: string): boolean {
  return list === 'All' || list.some((entry) => entry.toLowerCase() === key.toLowerCase());
}

function label(field: TableListField): string {
  return fieldLabel(field.split('.'));
}

/** `` `name` ``, with backquotes doubled. */
export const quoteName = (name: string): string => `\`${name.replaceAll('`', '``')}\``;

/** `` `database`.`table` ``: every statement names the table's database, as a source or staging server may hold several. */
export const qualifiedName = (table: { schema: string; name: string }): string => `${quoteName(table.schema)}.${quoteName(table.name)}`;

/** The databases of the server itself, never a source's. */
export const SYSTEM_DATABASES: readonly string[] = ['mysql', 'information_schema', 'performance_schema', 'sys'];

/** Which databases a source reads: the one its connection string names, or every user database of the server. */
export function databaseFilter(column: string, database: string | null): { sql: string; values: string[] } {
  return database === null
    ? { sql: `${column} NOT IN (${SYSTEM_DATABASES.map(() => '?').join(', ')})`, values: [...SYSTEM_DATABASES] }
    : { sql: `${column} = ?`, values: [database] };
}

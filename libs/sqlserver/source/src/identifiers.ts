import type { TableRef } from '@svc/contracts';

/** `[name]`, with `]` doubled: T-SQL's QUOTENAME for any name (QUOTENAME itself stops at 128 characters). */
export function quoteName(name: string): string {
  return `[${name.replace(/\]/g, ']]')}]`;
}

/** `[schema].[table]` */
export function qualifiedName(table: TableRef): string {
  return `${quoteName(table.schema)}.${quoteName(table.name)}`;
}

/** An N'…' literal (for OBJECT_ID and sp_getapplock names): quotes doubled, nothing else to escape in T-SQL. */
export function unicodeLiteral(text: string): string {
  return `N'${text.replace(/'/g, "''")}'`;
}

/**
 * Why a definition's columns (`defined`) do not describe the table as a read's snapshot sees it (`actual`),
 * or null when they do. With `projected` (SchemaReplication off: the definition names a chosen subset),
 * columns the table has besides them are expected. Every source engine checks its reads with it.
 */
export function columnMismatch(defined: readonly string[], actual: readonly string[], projected: boolean): string | null {
  const actualSet = new Set(actual);
  const gone = defined.filter((name) => !actualSet.has(name));
  if (gone.length > 0) return `column(s) ${gone.join(', ')} no longer exist`;
  if (projected) return null;
  const definedSet = new Set(defined);
  const added = actual.filter((name) => !definedSet.has(name));
  return added.length > 0 ? `column(s) ${added.join(', ')} were added` : null;
}

/**
 * Why the definition's column types (`defined`, each column's sourceType) are not those the read's snapshot sees
 * (`actual`, in the same engine's spelling), or null when they are: a column altered (ALTER COLUMN … TYPE) after
 * the table was described. Columns only one side has are columnMismatch's business.
 */
export function columnTypeMismatch(defined: readonly { name: string; type: string }[], actual: readonly { name: string; type: string }[]): string | null {
  const actualTypes = new Map(actual.map((column) => [column.name, column.type]));
  const changed = defined.flatMap((column) => {
    const now = actualTypes.get(column.name);
    return now === undefined || now === column.type ? [] : [`${column.name} (${column.type} → ${now})`];
  });
  return changed.length > 0 ? `column(s) ${changed.join(', ')} changed type` : null;
}

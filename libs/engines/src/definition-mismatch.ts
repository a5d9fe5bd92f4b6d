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

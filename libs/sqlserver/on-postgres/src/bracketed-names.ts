/** A T-SQL bracketed name as PostgreSQL quotes it: `[a]]b]` → `"a]b"`. */
export function quoted(bracketed: string): string {
  return `"${bracketed.slice(1, -1).replace(/\]\]/g, ']').replace(/"/g, '""')}"`;
}

/** A PostgreSQL identifier in double quotes, inner quotes doubled: safe for any name. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"schema"."name"` */
export function qualifiedName(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** Quoted identifiers, comma-separated: `"a", "b"` or, with an alias, `l."a", l."b"`. */
export function columnList(names: readonly string[], alias?: string): string {
  const prefix = alias === undefined ? '' : `${alias}.`;
  return names.map((name) => `${prefix}${quoteIdent(name)}`).join(', ');
}

/** An escape-string literal (`E'…'`), correct whatever standard_conforming_strings says. */
export function quoteLiteral(value: string): string {
  if (value.includes('\0')) throw new Error('a SQL literal cannot contain a NUL character');
  return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * A double of what Redshift's DDL does with column types and names, as AWS documents it, for specs that cannot run a
 * cluster. It refuses what Redshift refuses and truncates what Redshift truncates; it accepts nothing more.
 */

/**
 * Why Redshift refuses `type` in a column definition; null when it takes it. AWS, Numeric types
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_Numeric_types201.html): "The maximum precision is 38",
 * "In a column specification, the scale value must be less than or equal to the precision value", "The maximum
 * scale is 37". Character types (r_Character_types.html): VARCHAR up to 65535 bytes, CHAR up to 4096 bytes.
 * VARBYTE type (r_VARBYTE_type.html): "The maximum number of bytes (n) can range from 1 – 16,777,216".
 */
export function redshiftTypeRefusal(type: string): string | null {
  const decimal = /^(?:NUMERIC|DECIMAL)\((-?\d+),(-?\d+)\)$/i.exec(type);
  if (decimal !== null) {
    const precision = Number(decimal[1]);
    const scale = Number(decimal[2]);
    if (precision < 1 || precision > 38) return `NUMERIC precision ${precision} must be between 1 and 38`;
    if (scale < 0 || scale > 37) return `NUMERIC scale ${scale} must be between 0 and 37`;
    if (scale > precision) return `NUMERIC scale ${scale} must be less than or equal to the precision ${precision}`;
    return null;
  }
  const sized = /^(VARCHAR|CHAR|VARBYTE)\((\d+)\)$/i.exec(type);
  if (sized !== null) {
    const size = Number(sized[2]);
    const max = { VARCHAR: 65535, CHAR: 4096, VARBYTE: 16777216 }[(sized[1] ?? '').toUpperCase() as 'VARCHAR' | 'CHAR' | 'VARBYTE'];
    return size >= 1 && size <= max ? null : `${sized[1]} length ${size} must be between 1 and ${max}`;
  }
  return ['SMALLINT', 'INTEGER', 'BIGINT', 'BOOLEAN', 'REAL', 'DOUBLE PRECISION', 'DATE', 'TIME', 'TIMETZ', 'TIMESTAMP', 'TIMESTAMPTZ'].includes(type.toUpperCase())
    ? null
    : `${type} is no Redshift type the service declares`;
}

/** Redshift's longest identifier: "Be between 1 and 127 bytes in length" (AWS, Names and identifiers, r_names.html). */
const IDENTIFIER_BYTES = 127;

/**
 * A name as Redshift stores it: ASCII letters folded to lower case, then cut to 127 bytes on a character
 * boundary. AWS, Names and identifiers (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html): identifiers
 * "Be between 1 and 127 bytes in length" of UTF-8, and "ASCII letters in standard and delimited identifiers are
 * case-insensitive and are folded to lowercase in the database". A longer name is truncated, not refused, as by
 * PostgreSQL, whose parser Redshift keeps (src/backend/parser/scansup.c, truncate_identifier: a NOTICE, then the
 * name cut to the limit on a character boundary); docs/REDSHIFT.md lists this among what a live cluster confirms.
 */
export function storedIdentifier(name: string): string {
  let kept = '';
  for (const character of name.replace(/[A-Z]/g, (letter) => letter.toLowerCase())) {
    if (Buffer.byteLength(kept + character, 'utf8') > IDENTIFIER_BYTES) break;
    kept += character;
  }
  return kept;
}

/** One Redshift table's columns, as CREATE TABLE and ALTER TABLE … ADD COLUMN leave them in the catalog. */
export class RedshiftTableDouble {
  private readonly stored: string[] = [];

  /** CREATE TABLE: every name truncated; two that become one fail as Redshift fails "column specified more than once". */
  create(columns: readonly { name: string; type: string }[]): void {
    for (const column of columns) {
      const name = storedIdentifier(column.name);
      if (this.stored.includes(name)) throw new Error(`column "${name}" specified more than once`);
      this.check(column.type);
      this.stored.push(name);
    }
  }

  /** ALTER TABLE … ADD COLUMN: fails "already exists" when the truncated name is there. */
  addColumn(name: string, type: string): void {
    const storedName = storedIdentifier(name);
    if (this.stored.includes(storedName)) throw new Error(`column "${storedName}" of relation already exists`);
    this.check(type);
    this.stored.push(storedName);
  }

  /** The names information_schema.columns lists. */
  columns(): Set<string> {
    return new Set(this.stored);
  }

  private check(type: string): void {
    const refusal = redshiftTypeRefusal(type);
    if (refusal !== null) throw new Error(`invalid column type ${type}: ${refusal}`);
  }
}

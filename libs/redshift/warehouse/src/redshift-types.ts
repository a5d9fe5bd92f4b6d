import type { ColumnDefinition } from '@svc/contracts';

/** Redshift's widest VARCHAR, in bytes. */
export const MAX_VARCHAR_BYTES = 65535;
/** Redshift's widest VARBYTE, in bytes. */
export const MAX_VARBYTE_BYTES = 1024000;
/** UTF-8 takes up to 4 bytes per character, and Redshift counts VARCHAR lengths in bytes. */
const BYTES_PER_CHARACTER = 4;
/**
 * Redshift's DECIMAL: "The maximum precision is 38", "The maximum scale is 37", and "the scale value must be less
 * than or equal to the precision value" (AWS, Numeric types, https://docs.aws.amazon.com/redshift/latest/dg/r_Numeric_types201.html).
 */
const MAX_NUMERIC_PRECISION = 38;
const MAX_NUMERIC_SCALE = 37;

/** How a warehouse column is declared on Redshift and how its values are loaded. */
export interface RedshiftColumnType {
  /** The column's Redshift type, as DDL writes it. */
  type: string;
  /** Bytes a loaded value may have; null when the type's own parsing bounds it (numbers, dates). */
  capacityBytes: number | null;
  /** 'hex': binary loaded from bare hex (the pipeline's bytea text without `\x`). */
  form: 'text' | 'hex';
  /** What is lost or refused on the way, for docs/REDSHIFT.md; null when nothing is. */
  lost: string | null;
  /**
   * Source values the type cannot hold, refused before files are written (redshift-file-rows.ts): 'decimal' NaN
   * and ±Infinity, 'datetime' ±infinity, BC and years past Redshift's 294276 AD.
   */
  finite?: 'decimal' | 'datetime';
}

const TEXT_CAPACITY_NOTE = `VARCHAR(${MAX_VARCHAR_BYTES}): a value over ${MAX_VARCHAR_BYTES} bytes fails its batch with an error naming table, column and key, never truncated`;

const text = (lost: string | null = TEXT_CAPACITY_NOTE): RedshiftColumnType => ({ type: `VARCHAR(${MAX_VARCHAR_BYTES})`, capacityBytes: MAX_VARCHAR_BYTES, form: 'text', lost });
const exact = (type: string, lost: string | null = null): RedshiftColumnType => ({ type, capacityBytes: null, form: 'text', lost });

/** Characters → bytes: a VARCHAR wide enough for any n characters of UTF-8, up to Redshift's widest. */
function characters(count: number, what: string): RedshiftColumnType {
  const bytes = count * BYTES_PER_CHARACTER;
  if (bytes <= MAX_VARCHAR_BYTES) return { type: `VARCHAR(${bytes})`, capacityBytes: bytes, form: 'text', lost: null };
  return text(`${what} longer than ${MAX_VARCHAR_BYTES / BYTES_PER_CHARACTER} characters: ${TEXT_CAPACITY_NOTE}`);
}

/**
 * numeric(p,s) as a DECIMAL Redshift declares, holding every value of the source exactly; else its exact text.
 * PostgreSQL allows a scale above the precision (numeric(5,7): values under 0.01 with 7 decimals, which
 * NUMERIC(7,7) holds) and a negative scale (numeric(5,-2): integers rounded to hundreds, up to 7 digits, which
 * NUMERIC(7,0) holds); Redshift allows neither, nor a scale above 37 (numeric(38,38)).
 */
function decimal(precision: number, scale: number): RedshiftColumnType {
  const digits = scale < 0 ? precision - scale : Math.max(precision, scale);
  const declaredScale = Math.max(scale, 0);
  if (scale > MAX_NUMERIC_SCALE) return text(`numeric(${precision},${scale}): Redshift's DECIMAL keeps at most ${MAX_NUMERIC_SCALE} decimals, so it travels as its exact text`);
  if (digits > MAX_NUMERIC_PRECISION) return text(`numeric(${precision},${scale}): more than ${MAX_NUMERIC_PRECISION} digits, so it travels as its exact text`);
  return { ...exact(`NUMERIC(${digits},${declaredScale})`), finite: 'decimal' };
}

/**
 * The Redshift type of a column from its portable type (PostgreSQL's spelling, which both source engines
 * produce: `format_type` for PostgreSQL sources, the column plans of libs/sqlserver/common for SQL Server).
 * Nothing is declared narrower than the source allows; what Redshift cannot hold as its own type travels as
 * exact text.
 */
export function redshiftColumnType(column: Pick<ColumnDefinition, 'portableType'>): RedshiftColumnType {
  const portable = column.portableType.trim().toLowerCase();
  if (portable.endsWith('[]')) return text(`an array: its PostgreSQL text form ({a,b}); ${TEXT_CAPACITY_NOTE}`);
  const match = /^([a-z ]+?)\s*(?:\((\d+)(?:\s*,\s*(-?\d+))?\))?(\s+with(?:out)? time zone)?$/.exec(portable);
  const base = match?.[1] ?? portable;
  const first = match?.[2] === undefined ? undefined : Number(match[2]);
  const second = match?.[3] === undefined ? 0 : Number(match[3]);
  const zone = match?.[4]?.trim();
  switch (base) {
    case 'smallint':
    case 'int2':
      return exact('SMALLINT');
    case 'integer':
    case 'int':
    case 'int4':
      return exact('INTEGER');
    case 'bigint':
    case 'int8':
      return exact('BIGINT');
    case 'boolean':
    case 'bool':
      return exact('BOOLEAN');
    case 'real':
    case 'float4':
      return exact('REAL');
    case 'double precision':
    case 'float8':
      return exact('DOUBLE PRECISION');
    case 'numeric':
    case 'decimal':
      if (first === undefined) return text('numeric without precision: PostgreSQL holds values NUMERIC(38,s) cannot, so it travels as its exact text');
      return decimal(first, second);
    case 'date':
      return { ...exact('DATE'), finite: 'datetime' };
    case 'time':
      return exact(zone === 'with time zone' ? 'TIMETZ' : 'TIME', 'microseconds: a 7th fractional digit is rounded');
    case 'timetz':
      return exact('TIMETZ', 'microseconds: a 7th fractional digit is rounded');
    case 'timestamp':
      return {
        ...exact(zone === 'with time zone' ? 'TIMESTAMPTZ' : 'TIMESTAMP', zone === 'with time zone' ? 'stored in UTC with microseconds: the original offset is not kept' : 'microseconds'),
        finite: 'datetime',
      };
    case 'timestamptz':
      return { ...exact('TIMESTAMPTZ', 'stored in UTC with microseconds: the original offset is not kept'), finite: 'datetime' };
    case 'character':
    case 'char':
    case 'bpchar':
      return characters(first ?? 1, 'char(n)');
    case 'character varying':
    case 'varchar':
      return first === undefined ? text() : characters(first, 'varchar(n)');
    case 'uuid':
      return { type: 'CHAR(36)', capacityBytes: 36, form: 'text', lost: 'its text (Redshift has no uuid type)' };
    case 'bytea':
      return {
        type: `VARBYTE(${MAX_VARBYTE_BYTES})`,
        capacityBytes: MAX_VARBYTE_BYTES,
        form: 'hex',
        lost:
          `VARBYTE(${MAX_VARBYTE_BYTES}): a value over ${MAX_VARBYTE_BYTES} bytes fails its batch with an error naming table, column and key; ` +
          'an empty value (zero bytes) is an empty CSV field, which COPY loads as NULL into every type but CHAR and VARCHAR',
      };
    case 'json':
    case 'jsonb':
      return text(`its JSON text (query it with JSON_PARSE or JSON_EXTRACT_PATH_TEXT); ${TEXT_CAPACITY_NOTE}`);
    case 'text':
      return text();
    default:
      return text(`${base}: its PostgreSQL text form; ${TEXT_CAPACITY_NOTE}`);
  }
}

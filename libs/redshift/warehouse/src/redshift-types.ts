import { describePortableType, type PortableType, type PortableTypeOf, type ScalarPortableType } from '@svc/contracts';
import type { TimeForm } from './redshift-time-text';

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
/**
 * TIME, TIMETZ, TIMESTAMP and TIMESTAMPTZ "store values with up to a maximum of six digits of precision for
 * fractional seconds" (AWS, Datetime types, https://docs.aws.amazon.com/redshift/latest/dg/r_Datetime_types.html).
 */
const MAX_SECOND_DIGITS = 6;

/** How a warehouse column is declared on Redshift and how its values are loaded. */
export interface RedshiftColumnType {
  /** The column's Redshift type, as DDL writes it. */
  type: string;
  /** Bytes a loaded value may have; null when the type's own parsing bounds it (numbers, dates). */
  capacityBytes: number | null;
  /** 'hex': binary loaded from bare hex (the interchange format's binary text without `\x`). */
  form: 'text' | 'hex';
  /** What is lost or refused on the way, for docs/REDSHIFT.md; null when nothing is. */
  lost: string | null;
  /**
   * Source values the type cannot hold, refused before files are written (redshift-file-rows.ts): 'decimal' NaN
   * and ±Infinity, 'datetime' ±infinity, BC and years past Redshift's 294276 AD.
   */
  finite?: 'decimal' | 'datetime';
  /** A date or time, written in a form COPY documents (redshift-time-text.ts). */
  time?: TimeForm;
}

const TEXT_CAPACITY_NOTE = `VARCHAR(${MAX_VARCHAR_BYTES}): a value over ${MAX_VARCHAR_BYTES} bytes fails its batch with an error naming table, column and key, never truncated`;
const ROUNDED_SECONDS = `fractional seconds past the ${MAX_SECOND_DIGITS}th digit are rounded (Redshift keeps microseconds)`;

const text = (lost: string | null = TEXT_CAPACITY_NOTE): RedshiftColumnType => ({ type: `VARCHAR(${MAX_VARCHAR_BYTES})`, capacityBytes: MAX_VARCHAR_BYTES, form: 'text', lost });
const exact = (type: string, lost: string | null = null): RedshiftColumnType => ({ type, capacityBytes: null, form: 'text', lost });
const varchar = (bytes: number): RedshiftColumnType => ({ type: `VARCHAR(${bytes})`, capacityBytes: bytes, form: 'text', lost: null });

/**
 * The Redshift type of a column from its portable type. Nothing is declared narrower than the source allows;
 * what Redshift cannot hold as its own type travels as exact text.
 */
export function redshiftColumnType(type: PortableType): RedshiftColumnType {
  if (type.kind === 'array') return text(`an array: its PostgreSQL text form ({a,b}); ${TEXT_CAPACITY_NOTE}`);
  return scalarColumnType(type);
}

function scalarColumnType(type: ScalarPortableType): RedshiftColumnType {
  switch (type.kind) {
    case 'integer':
      return exact(type.bytes === 2 ? 'SMALLINT' : type.bytes === 4 ? 'INTEGER' : 'BIGINT');
    case 'boolean':
      return exact('BOOLEAN');
    case 'float':
      return exact(type.bytes === 4 ? 'REAL' : 'DOUBLE PRECISION');
    case 'decimal':
      if (type.precision === null) return text('decimal without precision: the source holds values NUMERIC(38,s) cannot, so it travels as its exact text');
      return decimal(type.precision, type.scale);
    case 'date':
      return { ...exact('DATE'), finite: 'datetime', time: 'date' };
    case 'time':
      return { ...exact(type.zone ? 'TIMETZ' : 'TIME', type.precision > MAX_SECOND_DIGITS ? ROUNDED_SECONDS : null), time: type.zone ? 'timetz' : 'time' };
    case 'timestamp':
      return { ...timestamp(type), finite: 'datetime' };
    case 'text':
      return textColumnType(type);
    case 'uuid':
      return { type: 'CHAR(36)', capacityBytes: 36, form: 'text', lost: 'its text (Redshift has no uuid type)' };
    case 'binary':
      return {
        type: `VARBYTE(${MAX_VARBYTE_BYTES})`,
        capacityBytes: MAX_VARBYTE_BYTES,
        form: 'hex',
        lost:
          `VARBYTE(${MAX_VARBYTE_BYTES}): a value over ${MAX_VARBYTE_BYTES} bytes fails its batch with an error naming table, column and key; ` +
          'an empty value (zero bytes) is an empty CSV field, which COPY loads as NULL into every type but CHAR and VARCHAR; ' +
          'in a key column, which is never NULL, it is refused (the table stops)',
      };
    case 'json':
      return text(`its JSON text (query it with JSON_PARSE or JSON_EXTRACT_PATH_TEXT); ${TEXT_CAPACITY_NOTE}`);
    case 'interval':
      return text(`interval: its ISO 8601 duration text (P1DT2H); ${TEXT_CAPACITY_NOTE}`);
    case 'native':
      return text(`${describePortableType(type)}: its ${type.engine} text form; ${TEXT_CAPACITY_NOTE}`);
  }
}

/**
 * decimal(p,s) as a DECIMAL Redshift declares, holding every value of the source exactly; else its exact text.
 * PostgreSQL allows a scale above the precision (numeric(5,7): values under 0.01 with 7 decimals, which
 * NUMERIC(7,7) holds) and a negative scale (numeric(5,-2): integers rounded to hundreds, up to 7 digits, which
 * NUMERIC(7,0) holds); Redshift allows neither, nor a scale above 37 (numeric(38,38)).
 */
function decimal(precision: number, scale: number): RedshiftColumnType {
  const digits = scale < 0 ? precision - scale : Math.max(precision, scale);
  const declaredScale = Math.max(scale, 0);
  if (scale > MAX_NUMERIC_SCALE) return text(`decimal(${precision},${scale}): Redshift's DECIMAL keeps at most ${MAX_NUMERIC_SCALE} decimals, so it travels as its exact text`);
  if (digits > MAX_NUMERIC_PRECISION) return text(`decimal(${precision},${scale}): more than ${MAX_NUMERIC_PRECISION} digits, so it travels as its exact text`);
  return { ...exact(`NUMERIC(${digits},${declaredScale})`), finite: 'decimal' };
}

function timestamp(type: PortableTypeOf<'timestamp'>): RedshiftColumnType {
  const rounded = type.precision > MAX_SECOND_DIGITS ? ROUNDED_SECONDS : null;
  if (!type.zone) return { ...exact('TIMESTAMP', rounded), time: 'timestamp' };
  const lost = ['stored in UTC with microseconds: the original offset is not kept', rounded].filter((note) => note !== null).join('; ');
  return { ...exact('TIMESTAMPTZ', lost), time: 'timestamptz' };
}

/**
 * A length in characters becomes bytes (a VARCHAR wide enough for any n characters of UTF-8); a length in bytes
 * is one already. Redshift's CHAR holds single-byte characters only, so fixed text is a VARCHAR too, its blanks
 * kept as sent. Up to Redshift's widest VARCHAR; past it, the widest.
 */
function textColumnType(type: PortableTypeOf<'text'>): RedshiftColumnType {
  if (type.length === null) return text();
  const what = type.fixed ? 'char(n)' : 'varchar(n)';
  if (type.unit === 'bytes') {
    if (type.length <= MAX_VARCHAR_BYTES) return varchar(type.length);
    return text(`${what} longer than ${MAX_VARCHAR_BYTES} bytes: ${TEXT_CAPACITY_NOTE}`);
  }
  const bytes = type.length * BYTES_PER_CHARACTER;
  if (bytes <= MAX_VARCHAR_BYTES) return varchar(bytes);
  return text(`${what} longer than ${Math.floor(MAX_VARCHAR_BYTES / BYTES_PER_CHARACTER)} characters: ${TEXT_CAPACITY_NOTE}`);
}

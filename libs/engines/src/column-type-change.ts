import { tableKey, type TableRef } from '@svc/contracts';
import { EngineError } from './errors';

/**
 * Whose spelling a type text is in. The portable types of every definition, and the types of PostgreSQL and
 * Redshift tables, are PostgreSQL's (`varchar` holds any character); a SQL Server staging table's types are
 * SQL Server's (`varchar` holds a code page's characters, `nvarchar` any); a MySQL staging table's are MySQL's
 * (information_schema's COLUMN_TYPE: `int(11)`, `bigint(20) unsigned`, `datetime(6)`, `longtext`).
 */
export type TypeDialect = 'postgres' | 'sqlserver' | 'mysql';

/**
 * How a column's type in a source definition (`wanted`) relates to the type the staging or warehouse column
 * has (`existing`):
 * - `same`: one type, perhaps spelled another way (`int4` and `integer`);
 * - `widened`: every value of `existing` is a value of `wanted` unchanged: the column can be altered to it;
 * - `narrowed`: the other way round: the existing column already holds every value the source can now have;
 * - `incompatible`: neither holds the other's values (integer and text, timestamp and timestamptz).
 */
export type ColumnTypeRelation = 'same' | 'widened' | 'narrowed' | 'incompatible';

type NeutralType =
  | { kind: 'integer'; min: bigint; max: bigint }
  | { kind: 'characters'; fixed: boolean; length: number | null; unicode: boolean }
  | { kind: 'numeric'; precision: number | null; scale: number }
  | { kind: 'float'; mantissaBits: number }
  | { kind: 'temporal'; base: string; precision: number }
  | { kind: 'binary'; fixed: boolean; length: number | null }
  | { kind: 'other'; text: string };

const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  tinyint: [0n, 255n],
  smallint: [-(2n ** 15n), 2n ** 15n - 1n],
  int2: [-(2n ** 15n), 2n ** 15n - 1n],
  integer: [-(2n ** 31n), 2n ** 31n - 1n],
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  int4: [-(2n ** 31n), 2n ** 31n - 1n],
  bigint: [-(2n ** 63n), 2n ** 63n - 1n],
  int8: [-(2n ** 63n), 2n ** 63n - 1n],
};

const TYPE_TEXT = /^([a-z_][a-z0-9_ ]*?)\s*(?:\(\s*(max|\d+)\s*(?:,\s*(\d+)\s*)?\))?(?:\s+(with|without) time zone)?$/;

/** A type text (format_type's, a portable type, information_schema's or SQL Server's spelling) as a point of the widening lattice. */
function neutralType(text: string, dialect: TypeDialect): NeutralType {
  const normalized = text.trim().toLowerCase().replace(/\s+/g, ' ').replace(/"/g, '');
  if (dialect === 'mysql') return mysqlNeutralType(normalized);
  const match = TYPE_TEXT.exec(normalized);
  if (match === null || normalized.endsWith('[]')) return { kind: 'other', text: normalized };
  const name = match[1] ?? '';
  const first = match[2];
  const size = first === undefined ? undefined : first === 'max' ? null : Number(first);
  const second = match[3] === undefined ? undefined : Number(match[3]);
  const zoned = match[4] === 'with';
  const range = INTEGER_RANGES[name];
  if (range !== undefined && (name !== 'tinyint' || dialect === 'sqlserver')) return { kind: 'integer', min: range[0], max: range[1] };
  const sqlServer = dialect === 'sqlserver';
  switch (name) {
    case 'character varying':
    case 'varchar':
      return { kind: 'characters', fixed: false, length: size ?? null, unicode: !sqlServer };
    case 'nvarchar':
      return { kind: 'characters', fixed: false, length: size ?? null, unicode: true };
    case 'text':
      return { kind: 'characters', fixed: false, length: null, unicode: !sqlServer };
    case 'ntext':
      return { kind: 'characters', fixed: false, length: null, unicode: true };
    case 'character':
    case 'char':
    case 'bpchar':
      return { kind: 'characters', fixed: true, length: size ?? 1, unicode: !sqlServer };
    case 'nchar':
      return { kind: 'characters', fixed: true, length: size ?? 1, unicode: true };
    case 'numeric':
    case 'decimal':
      // PostgreSQL's bare numeric is unbounded; SQL Server's is decimal(18,0).
      if (size === undefined) return sqlServer ? { kind: 'numeric', precision: 18, scale: 0 } : { kind: 'numeric', precision: null, scale: 0 };
      return { kind: 'numeric', precision: size, scale: second ?? 0 };
    case 'money':
      return sqlServer ? { kind: 'numeric', precision: 19, scale: 4 } : { kind: 'other', text: normalized };
    case 'smallmoney':
      return { kind: 'numeric', precision: 10, scale: 4 };
    case 'real':
    case 'float4':
      return { kind: 'float', mantissaBits: 24 };
    case 'double precision':
    case 'float8':
      return { kind: 'float', mantissaBits: 53 };
    case 'float':
      return { kind: 'float', mantissaBits: size !== undefined && size !== null && size <= 24 ? 24 : 53 };
    case 'timestamp':
      return { kind: 'temporal', base: zoned ? 'timestamptz' : 'timestamp', precision: size ?? 6 };
    case 'timestamptz':
      return { kind: 'temporal', base: 'timestamptz', precision: size ?? 6 };
    case 'time':
      return { kind: 'temporal', base: zoned ? 'timetz' : 'time', precision: size ?? (sqlServer ? 7 : 6) };
    case 'timetz':
      return { kind: 'temporal', base: 'timetz', precision: size ?? 6 };
    case 'datetime2':
      return { kind: 'temporal', base: 'timestamp', precision: size ?? 7 };
    case 'datetimeoffset':
      return { kind: 'temporal', base: 'timestamptz', precision: size ?? 7 };
    case 'bytea':
      return { kind: 'binary', fixed: false, length: null };
    case 'varbinary':
      return { kind: 'binary', fixed: false, length: size === undefined ? 1 : size };
    case 'binary':
      return { kind: 'binary', fixed: true, length: size ?? 1 };
    default:
      return { kind: 'other', text: normalized };
  }
}

const MYSQL_INTEGER_BITS: Readonly<Record<string, bigint>> = { tinyint: 8n, smallint: 16n, mediumint: 24n, int: 32n, integer: 32n, bigint: 64n };

/**
 * The lengths of MySQL's TEXT and BLOB types, in bytes ("String Type Storage Requirements"): for text, counted as the
 * characters a utf8mb4 value of that many bytes holds at least (4 bytes a character), so that no widening is claimed
 * that a value could overflow.
 */
const MYSQL_TEXT_CHARACTERS: Readonly<Record<string, number | null>> = { tinytext: 63, text: 16_383, mediumtext: 4_194_303, longtext: null };
const MYSQL_BLOB_BYTES: Readonly<Record<string, number | null>> = { tinyblob: 255, blob: 65_535, mediumblob: 16_777_215, longblob: null };

/**
 * A MySQL or MariaDB type as COLUMN_TYPE spells it. Integer display widths (`int(11)`) say nothing of the range, which
 * `unsigned` moves; `tinyint(1)` is BOOLEAN ("Numeric Data Type Syntax"); a bare `time`, `datetime` or `timestamp` has
 * no fractional digits; `timestamp` holds instants (stored in UTC), `datetime` wall-clock readings; `float` is single
 * precision, `double` and `real` double; every character type is taken as utf8mb4 (any character).
 */
function mysqlNeutralType(normalized: string): NeutralType {
  const unsigned = /\bunsigned\b/.test(normalized);
  const bare = normalized.replace(/\s+(?:unsigned|signed|zerofill)\b/g, '');
  const match = TYPE_TEXT.exec(bare);
  if (match === null) return { kind: 'other', text: normalized };
  const name = match[1] ?? '';
  const size = match[2] === undefined || match[2] === 'max' ? undefined : Number(match[2]);
  const second = match[3] === undefined ? undefined : Number(match[3]);
  const zoned = match[4] === 'with';
  if (name === 'bool' || name === 'boolean' || (name === 'tinyint' && size === 1 && !unsigned)) return { kind: 'other', text: 'tinyint(1)' };
  const bits = MYSQL_INTEGER_BITS[name];
  if (bits !== undefined) return unsigned ? { kind: 'integer', min: 0n, max: 2n ** bits - 1n } : { kind: 'integer', min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n };
  if (name in MYSQL_TEXT_CHARACTERS) return { kind: 'characters', fixed: false, length: MYSQL_TEXT_CHARACTERS[name] ?? null, unicode: true };
  if (name in MYSQL_BLOB_BYTES) return { kind: 'binary', fixed: false, length: MYSQL_BLOB_BYTES[name] ?? null };
  switch (name) {
    case 'varchar':
    case 'char':
      return { kind: 'characters', fixed: name === 'char', length: size ?? 1, unicode: true };
    case 'decimal':
    case 'numeric':
    case 'dec':
    case 'fixed':
      return { kind: 'numeric', precision: size ?? 10, scale: second ?? 0 };
    case 'float':
      return { kind: 'float', mantissaBits: size !== undefined && size > 24 && second === undefined ? 53 : 24 };
    case 'double':
    case 'double precision':
    case 'real':
      return { kind: 'float', mantissaBits: 53 };
    case 'time':
      return { kind: 'temporal', base: zoned ? 'timetz' : 'time', precision: size ?? 0 };
    case 'datetime':
      return { kind: 'temporal', base: zoned ? 'timestamptz' : 'timestamp', precision: size ?? 0 };
    case 'timestamp':
      return { kind: 'temporal', base: 'timestamptz', precision: size ?? 0 };
    case 'varbinary':
      return { kind: 'binary', fixed: false, length: size ?? 1 };
    case 'binary':
      return { kind: 'binary', fixed: true, length: size ?? 1 };
    default:
      return { kind: 'other', text: normalized };
  }
}

/** Decimal digits the widest value of an integer range needs. */
function integerDigits(type: { min: bigint; max: bigint }): number {
  const widest = -type.min > type.max ? -type.min : type.max;
  return widest.toString().length;
}

function sameType(a: NeutralType, b: NeutralType): boolean {
  return JSON.stringify(a, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) ===
    JSON.stringify(b, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

const holdsLength = (from: number | null, to: number | null): boolean => to === null || (from !== null && to >= from);

/** True when every value of `from` is a value of `to`, unchanged (the lattice's order). */
function widens(from: NeutralType, to: NeutralType): boolean {
  switch (from.kind) {
    case 'integer':
      if (to.kind === 'integer') return to.min <= from.min && to.max >= from.max;
      return to.kind === 'numeric' && (to.precision === null || to.precision - to.scale >= integerDigits(from));
    case 'characters':
      return to.kind === 'characters' && to.fixed === from.fixed && holdsLength(from.length, to.length) && (to.unicode || !from.unicode);
    case 'numeric':
      if (to.kind !== 'numeric') return false;
      if (to.precision === null) return true;
      return from.precision !== null && to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
    case 'float':
      return to.kind === 'float' && to.mantissaBits >= from.mantissaBits;
    case 'temporal':
      return to.kind === 'temporal' && to.base === from.base && to.precision >= from.precision;
    case 'binary':
      return to.kind === 'binary' && !from.fixed && !to.fixed && holdsLength(from.length, to.length);
    case 'other':
      return false;
  }
}

/** True when the lattice knows the type (a number, text, time or binary type); other types are only ever the same or incompatible. */
export function isLatticeType(text: string, dialect: TypeDialect = 'postgres'): boolean {
  return neutralType(text, dialect).kind !== 'other';
}

/** True when the type is a variable-length character type (varchar, nvarchar, text). */
export function isVaryingText(text: string, dialect: TypeDialect = 'postgres'): boolean {
  const type = neutralType(text, dialect);
  return type.kind === 'characters' && !type.fixed;
}

/** How `wanted` (the source's type now) relates to `existing` (the column's type where it is copied to); see ColumnTypeRelation. */
export function columnTypeRelation(existing: string, wanted: string, dialect: TypeDialect = 'postgres'): ColumnTypeRelation {
  const from = neutralType(existing, dialect);
  const to = neutralType(wanted, dialect);
  if (sameType(from, to)) return 'same';
  if (widens(from, to)) return 'widened';
  if (widens(to, from)) return 'narrowed';
  return 'incompatible';
}

/** A column whose type in the source is not the type of the column it is copied to. */
export interface ColumnTypeDrift {
  name: string;
  /** The existing column's type, in the target's spelling. */
  from: string;
  /** The type it should have now, in the target's spelling. */
  to: string;
}

/** What to do about each column whose type moved (ColumnTypeRelation), for one staging or warehouse table. */
export interface ColumnTypePlan {
  /** Lossless: alter the column to the wider type. */
  widen: ColumnTypeDrift[];
  /** The source's type is narrower: the existing column holds every value, and is kept as it is. */
  keptWider: ColumnTypeDrift[];
  /** Neither holds the other's values: the table cannot take the source's rows. */
  incompatible: ColumnTypeDrift[];
}

export interface TypedColumn {
  name: string;
  type: string;
}

/**
 * The plan for the columns both the table (`existing`) and the definition (`wanted`, each in the target's own
 * type) have; columns only one side has are the added-column path's business (or suspectedRenames').
 */
export function planColumnTypes(existing: readonly TypedColumn[], wanted: readonly TypedColumn[], dialect: TypeDialect = 'postgres'): ColumnTypePlan {
  const existingTypes = new Map(existing.map((column) => [column.name, column.type]));
  const plan: ColumnTypePlan = { widen: [], keptWider: [], incompatible: [] };
  for (const column of wanted) {
    const from = existingTypes.get(column.name);
    if (from === undefined) continue;
    const drift = { name: column.name, from, to: column.type };
    switch (columnTypeRelation(from, column.type, dialect)) {
      case 'same':
        break;
      case 'widened':
        plan.widen.push(drift);
        break;
      case 'narrowed':
        plan.keptWider.push(drift);
        break;
      case 'incompatible':
        plan.incompatible.push(drift);
        break;
    }
  }
  return plan;
}

/** A column the source no longer has, and one it now has in the same place with the same type. */
export interface SuspectedRename {
  from: string;
  to: string;
}

/**
 * Columns that look renamed: a column of the table (`existing`, user columns in ordinal order) that the
 * definition (`wanted`, in the source's order) no longer has, paired with a column the table lacks at the same
 * position with the same type, or the only such pair when one column went and one came. The service cannot
 * tell a rename from a drop and an add: the old column is kept but no longer written (rows changed from then on
 * have NULL there) and the new one is added; the pairing only words the alert.
 */
export function suspectedRenames(existing: readonly TypedColumn[], wanted: readonly TypedColumn[], dialect: TypeDialect = 'postgres'): SuspectedRename[] {
  const wantedNames = new Set(wanted.map((column) => column.name));
  const existingNames = new Set(existing.map((column) => column.name));
  const gone = existing.map((column, position) => ({ ...column, position })).filter((column) => !wantedNames.has(column.name));
  const came = wanted.map((column, position) => ({ ...column, position })).filter((column) => !existingNames.has(column.name));
  const sameType = (a: TypedColumn, b: TypedColumn) => columnTypeRelation(a.type, b.type, dialect) === 'same';
  if (gone.length === 1 && came.length === 1) {
    const [old, renamed] = [gone[0], came[0]];
    return old !== undefined && renamed !== undefined && sameType(old, renamed) ? [{ from: old.name, to: renamed.name }] : [];
  }
  return gone.flatMap((old) => {
    const renamed = came.find((column) => column.position === old.position && sameType(old, column));
    return renamed === undefined ? [] : [{ from: old.name, to: renamed.name }];
  });
}

/**
 * The SchemaChange alert's words for what a table's ensureTable did beyond adding columns. A column kept wider
 * than the source's narrowed type is not worded: nothing was done, and it would be said again on every batch.
 */
export function columnChangeNotes(where: string, widened: readonly ColumnTypeDrift[], renames: readonly SuspectedRename[] = []): string[] {
  return [
    ...widened.map((drift) => `widened column ${drift.name} from ${drift.from} to ${drift.to} in ${where}`),
    ...renames.map(
      (rename) =>
        `column ${rename.from} is gone from the source and ${rename.to} appeared in its place with the same type: a rename? ` +
        `${where} gets ${rename.to} as a new column (filled by changes from now on, NULL in other rows until a reseed) and keeps ${rename.from}, ` +
        'no longer written (NULL in rows changed from now on)',
    ),
  ];
}

/**
 * A column's type changed in the source in a way the staging or warehouse table cannot follow without losing
 * values (`incompatible`), or cannot follow in place on its engine (`reason`): the table stops, naming each
 * column with its old and new type, rather than fail later on a value that does not fit.
 */
export class ColumnTypeChangeError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;

  constructor(
    table: TableRef,
    where: string,
    readonly changes: readonly ColumnTypeDrift[],
    reason = 'only lossless widenings (longer text, wider integers, more numeric digits, finer time) are applied in place',
  ) {
    const columns = changes.map((change) => `${change.name} from ${change.from} to ${change.to}`).join(', ');
    super(
      `${tableKey(table)}: the type of column(s) ${columns} changed in the source and ${where} cannot follow (${reason}); ` +
        'the table stops: change the column back, or drop the staging and warehouse tables of the table and reseed it (docs/ENGINES.md, "Column type changes")',
    );
    this.name = 'ColumnTypeChangeError';
  }
}

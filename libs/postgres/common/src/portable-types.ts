import { Portable, type ColumnDefinition, type PortableType, type ScalarPortableType } from '@svc/contracts';
import { checkedBuiltInType, isBuiltInScalarType } from './built-in-types';

/** The engine name a PostgreSQL type without a portable kind travels under (PortableType `native`). */
export const POSTGRES_ENGINE = 'postgres';

/** PostgreSQL's widest varchar(n) and char(n) ("n … cannot exceed 10,485,760"); a longer bound becomes text. */
const MAX_DECLARED_LENGTH = 10_485_760;
/** PostgreSQL keeps microseconds: "p … The allowed range of p is from 0 to 6". */
const MAX_SECOND_DIGITS = 6;

const TYPE_TEXT = /^([a-z ]+?)(?:\((\d+)(?:,(-?\d+))?\))?( with time zone| without time zone)?$/;

/**
 * The portable type of a column from PostgreSQL's spelling of it (format_type's text, which the source's
 * catalog query writes after following domains; user-defined types arrive as `text`). A built-in type the
 * model has no kind for (inet, money, point, bit(n), ranges, interval with fields…) is `native`: another
 * PostgreSQL declares it again, other engines store its text. Any other text (a built-in type that names the
 * source's own objects, such as regclass, or whatever a hostile catalog wrote) is no type to declare anywhere:
 * it travels as text, as user-defined types do (built-in-types.ts).
 */
export function portableTypeOfPostgres(typeText: string): PortableType {
  const text = typeText.trim();
  if (text.endsWith('[]')) return Portable.array(scalarOf(text.replace(/(?:\[\])+$/, '')));
  return scalarOf(text);
}

function scalarOf(text: string): ScalarPortableType {
  const match = TYPE_TEXT.exec(text);
  if (match === null) return nativeOrText(text);
  const [, name = '', first, second, zone] = match;
  const size = first === undefined ? undefined : Number(first);
  const zoned = zone === ' with time zone';
  switch (name) {
    case 'smallint':
      return Portable.smallint();
    case 'integer':
      return Portable.integer();
    case 'bigint':
      return Portable.bigint();
    case 'numeric':
      return Portable.decimal(size ?? null, second === undefined ? 0 : Number(second));
    case 'real':
      return Portable.float(4);
    case 'double precision':
      return Portable.float(8);
    case 'text':
      return Portable.text();
    case 'character varying':
      return size === undefined ? Portable.text() : Portable.varchar(size);
    case 'character':
      return Portable.char(size ?? 1);
    case 'bytea':
      return Portable.binary();
    case 'boolean':
      return Portable.boolean();
    case 'date':
      return Portable.date();
    case 'time':
      return Portable.time(size ?? MAX_SECOND_DIGITS, zoned);
    case 'timestamp':
      return Portable.timestamp(size ?? MAX_SECOND_DIGITS, zoned);
    case 'interval':
      // interval(3) or interval day to second keep their qualifiers between two PostgreSQL databases.
      return size === undefined && zone === undefined ? Portable.interval() : nativeOrText(text);
    case 'uuid':
      return Portable.uuid();
    case 'json':
      return Portable.json(false);
    case 'jsonb':
      return Portable.json(true);
    default:
      return nativeOrText(text);
  }
}

function nativeOrText(text: string): ScalarPortableType {
  return isBuiltInScalarType(text) ? Portable.native(POSTGRES_ENGINE, text) : Portable.text();
}

/** How a PostgreSQL staging or warehouse table declares a column of a portable type, and what that loses. */
export interface PostgresColumnType {
  /** The type as DDL writes it, in format_type's spelling (so the catalog reads back the same text). */
  type: string;
  /** What a value loses on the way, for the engine's type table; null when nothing. */
  lost: string | null;
}

const exact = (type: string): PostgresColumnType => ({ type, lost: null });

/**
 * The PostgreSQL type of a portable type: nothing is declared narrower than the type allows. A native PostgreSQL
 * type is declared only when it is a built-in one (UnsupportedPostgresTypeError naming `column` otherwise).
 */
export function postgresColumnType(type: PortableType, column: string | null = null): PostgresColumnType {
  if (type.kind !== 'array') return scalarColumnType(type, column);
  const element = scalarColumnType(type.element, column);
  return { type: `${element.type}[]`, lost: element.lost };
}

/** The type text a staging or warehouse column of this definition is declared with, checked whole (built-in-types.ts) before any DDL splices it. */
export function declaredPostgresType(column: Pick<ColumnDefinition, 'name' | 'portableType'>): string {
  return checkedBuiltInType(column.name, postgresColumnType(column.portableType, column.name).type);
}

function scalarColumnType(type: ScalarPortableType, column: string | null): PostgresColumnType {
  switch (type.kind) {
    case 'integer':
      return exact(type.bytes === 2 ? 'smallint' : type.bytes === 4 ? 'integer' : 'bigint');
    case 'decimal':
      return exact(type.precision === null ? 'numeric' : `numeric(${type.precision},${type.scale})`);
    case 'float':
      return exact(type.bytes === 4 ? 'real' : 'double precision');
    case 'text':
      return textColumnType(type.length, type.fixed);
    case 'binary':
      return exact('bytea');
    case 'boolean':
    case 'date':
    case 'interval':
    case 'uuid':
      return exact(type.kind);
    case 'time':
    case 'timestamp':
      return temporalColumnType(type.kind, type.precision, type.zone);
    case 'json':
      return exact(type.parsed ? 'jsonb' : 'json');
    case 'native':
      return type.engine === POSTGRES_ENGINE ? exact(checkedBuiltInType(column, type.type)) : { type: 'text', lost: `its ${type.engine} text form (${type.type})` };
  }
}

function textColumnType(length: number | null, fixed: boolean): PostgresColumnType {
  // A length in UTF-8 bytes bounds the characters too, so either unit declares `length` characters.
  if (length === null) return exact('text');
  if (length > MAX_DECLARED_LENGTH) return exact('text');
  return exact(fixed ? `character(${length})` : `character varying(${length})`);
}

function temporalColumnType(kind: 'time' | 'timestamp', precision: number, zone: boolean): PostgresColumnType {
  const digits = Math.min(precision, MAX_SECOND_DIGITS);
  const modifier = digits === MAX_SECOND_DIGITS ? '' : `(${digits})`;
  const type = `${kind}${modifier} ${zone ? 'with' : 'without'} time zone`;
  const losses = [
    ...(precision > MAX_SECOND_DIGITS ? ['fractional seconds past the 6th digit are rounded (PostgreSQL keeps microseconds)'] : []),
    // timetz keeps its offset; timestamptz stores the instant only.
    ...(zone && kind === 'timestamp' ? ['the same instant, stored in UTC: the original offset is not kept'] : []),
  ];
  return { type, lost: losses.length === 0 ? null : losses.join('; ') };
}

/** Types a PostgreSQL source reads, as format_type spells them, with what changes on the way (for docs/TYPES.md). */
const SOURCE_TYPE_SAMPLES: readonly { engineType: string; typeText: string; changes: string | null }[] = [
  { engineType: 'smallint', typeText: 'smallint', changes: null },
  { engineType: 'integer', typeText: 'integer', changes: null },
  { engineType: 'bigint', typeText: 'bigint', changes: null },
  { engineType: 'numeric(12,2)', typeText: 'numeric(12,2)', changes: null },
  { engineType: 'numeric', typeText: 'numeric', changes: null },
  { engineType: 'real', typeText: 'real', changes: 'written with the shortest text that reads back the same float' },
  { engineType: 'double precision', typeText: 'double precision', changes: 'written with the shortest text that reads back the same float' },
  { engineType: 'text', typeText: 'text', changes: null },
  { engineType: 'character varying(40)', typeText: 'character varying(40)', changes: null },
  { engineType: 'character(2)', typeText: 'character(2)', changes: null },
  { engineType: 'bytea', typeText: 'bytea', changes: null },
  { engineType: 'boolean', typeText: 'boolean', changes: null },
  { engineType: 'date', typeText: 'date', changes: null },
  { engineType: 'time(3) without time zone', typeText: 'time(3) without time zone', changes: null },
  { engineType: 'time with time zone', typeText: 'time with time zone', changes: null },
  { engineType: 'timestamp without time zone', typeText: 'timestamp without time zone', changes: null },
  { engineType: 'timestamp(3) with time zone', typeText: 'timestamp(3) with time zone', changes: 'the same instant, written in UTC (+00)' },
  { engineType: 'interval', typeText: 'interval', changes: 'written as an ISO 8601 duration (P1DT2H)' },
  { engineType: 'interval day to second(0)', typeText: 'interval day to second(0)', changes: 'its qualifiers are kept only by a PostgreSQL warehouse' },
  { engineType: 'uuid', typeText: 'uuid', changes: null },
  { engineType: 'json', typeText: 'json', changes: null },
  { engineType: 'jsonb', typeText: 'jsonb', changes: null },
  { engineType: 'integer[]', typeText: 'integer[]', changes: null },
  { engineType: 'inet, money, point, tsvector, bit(n), ranges…', typeText: 'inet', changes: 'kept as the type by a PostgreSQL warehouse; other warehouses store its PostgreSQL text' },
  { engineType: 'a domain', typeText: 'numeric(12,2)', changes: 'replicated as its base type (here numeric(12,2)); its constraint is not' },
  { engineType: 'an enum, composite or extension type', typeText: 'text', changes: 'its text form: other databases do not have the type' },
  { engineType: 'an array of an enum', typeText: 'text[]', changes: 'an array of its elements\' text' },
];

/** What a PostgreSQL source reads each kind of its types as (its catalog query follows domains and turns user-defined types into text first). */
export function postgresSourceTypes(): { engineType: string; portableType: PortableType; changes: string | null }[] {
  return SOURCE_TYPE_SAMPLES.map(({ engineType, typeText, changes }) => ({ engineType, portableType: portableTypeOfPostgres(typeText), changes }));
}

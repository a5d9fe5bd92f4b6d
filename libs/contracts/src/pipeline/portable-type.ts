import { Type, type Static } from '@sinclair/typebox';
import { Flag, Matching, OneOf, Struct, Variants } from '../schema/kinds';

/*
 * The portable type of a column: what its values are, in no engine's spelling. A source engine maps its own
 * types to it (with what changes on the way), a staging or warehouse engine maps it to a type it declares
 * (with what is lost); neither reads the other's type names. The values themselves travel in the row
 * interchange format of docs/ROW-FORMAT.md, one text form per kind (`interchangeTextProblem` checks it).
 */

const Integer = (minimum: number, maximum: number, problem: string) => Type.Integer({ minimum, maximum, problem });
/** A length or precision, or null for "unbounded" (text, varbinary(max), numeric without precision). */
const Bound = (maximum: number) => Type.Union([Type.Null(), Integer(1, maximum, `must be null or an integer from 1 to ${maximum}`)], { problem: `must be null or an integer from 1 to ${maximum}` });
/** Fractional digits of a second: 0 (whole seconds) to 9 (nanoseconds). */
const SecondDigits = () => Integer(0, 9, 'must be an integer from 0 to 9');

/** The largest length any engine declares (PostgreSQL's varchar and bytea stop at about 1 GB). */
const MAX_LENGTH = 2 ** 31 - 1;
/** PostgreSQL's numeric keeps up to 1000 declared digits, the widest of the engines. */
const MAX_PRECISION = 1000;

const IntegerTypeSchema = Struct({ kind: Type.Literal('integer'), bytes: Type.Union([Type.Literal(2), Type.Literal(4), Type.Literal(8)], { problem: 'must be 2, 4 or 8' }) });
const DecimalTypeSchema = Struct({
  kind: Type.Literal('decimal'),
  /** Total digits; null for a decimal without a declared precision (PostgreSQL's bare numeric). */
  precision: Bound(MAX_PRECISION),
  /** Digits after the point; negative rounds to tens, hundreds… (PostgreSQL 15's numeric(5,-2)). */
  scale: Integer(-MAX_PRECISION, MAX_PRECISION, `must be an integer from -${MAX_PRECISION} to ${MAX_PRECISION}`),
});
const FloatTypeSchema = Struct({ kind: Type.Literal('float'), bytes: Type.Union([Type.Literal(4), Type.Literal(8)], { problem: 'must be 4 or 8' }) });
const TextTypeSchema = Struct({
  kind: Type.Literal('text'),
  /** The longest value; null when unbounded. */
  length: Bound(MAX_LENGTH),
  /** What `length` counts: characters, or bytes of the value's UTF-8 text. */
  unit: OneOf(['characters', 'bytes']),
  /** Fixed length: shorter values are padded with blanks (char(n)), which the engines compare without. */
  fixed: Flag(),
});
const BinaryTypeSchema = Struct({ kind: Type.Literal('binary'), length: Bound(MAX_LENGTH), fixed: Flag() });
const BooleanTypeSchema = Struct({ kind: Type.Literal('boolean') });
const DateTypeSchema = Struct({ kind: Type.Literal('date') });
const TimeTypeSchema = Struct({ kind: Type.Literal('time'), precision: SecondDigits(), zone: Flag() });
const TimestampTypeSchema = Struct({
  kind: Type.Literal('timestamp'),
  precision: SecondDigits(),
  /** With a time zone: the value is an instant (written with its UTC offset); without, a wall-clock reading. */
  zone: Flag(),
});
const IntervalTypeSchema = Struct({ kind: Type.Literal('interval') });
const UuidTypeSchema = Struct({ kind: Type.Literal('uuid') });
const JsonTypeSchema = Struct({
  kind: Type.Literal('json'),
  /** Stored parsed (PostgreSQL's jsonb: keys sorted, duplicates dropped); else the text as written. */
  parsed: Flag(),
});
/**
 * A type one engine has and the portable model does not (PostgreSQL's inet, point, money, tsvector, ranges…):
 * its values travel as that engine's text form. An engine of the same name declares `type` itself, so nothing
 * is lost between two of them; any other stores the text.
 */
const NativeTypeSchema = Struct({
  kind: Type.Literal('native'),
  engine: Matching(/^[a-z][a-z0-9]*$/, 'must be an engine name'),
  /** The engine's own spelling of the type, spliced into its DDL: words, one parenthesised modifier list, quotes for "char". */
  type: Matching(/^(?:"char"|[a-z_][a-z0-9_]*(?:\s+[a-z_][a-z0-9_]*|\(\d+(?:,\s*-?\d+)?\))*)$/, 'must be a built-in type name (words and a parenthesised modifier)'),
});

const SCALAR_TYPE_SCHEMAS = [
  IntegerTypeSchema,
  DecimalTypeSchema,
  FloatTypeSchema,
  TextTypeSchema,
  BinaryTypeSchema,
  BooleanTypeSchema,
  DateTypeSchema,
  TimeTypeSchema,
  TimestampTypeSchema,
  IntervalTypeSchema,
  UuidTypeSchema,
  JsonTypeSchema,
  NativeTypeSchema,
] as const;

export const ScalarPortableTypeSchema = Variants('kind', [...SCALAR_TYPE_SCHEMAS]);
export type ScalarPortableType = Static<typeof ScalarPortableTypeSchema>;

/** An array of any dimensions of one scalar type (PostgreSQL does not enforce dimensions, so neither does the model). */
const ArrayTypeSchema = Struct({ kind: Type.Literal('array'), element: ScalarPortableTypeSchema });

export const PortableTypeSchema = Variants('kind', [...SCALAR_TYPE_SCHEMAS, ArrayTypeSchema]);
export type PortableType = Static<typeof PortableTypeSchema>;
export type PortableTypeKind = PortableType['kind'];
export type PortableTypeOf<K extends PortableTypeKind> = Extract<PortableType, { kind: K }>;

/** Builders for the common types, so that a definition reads like its table. */
export const Portable = {
  smallint: (): PortableTypeOf<'integer'> => ({ kind: 'integer', bytes: 2 }),
  integer: (): PortableTypeOf<'integer'> => ({ kind: 'integer', bytes: 4 }),
  bigint: (): PortableTypeOf<'integer'> => ({ kind: 'integer', bytes: 8 }),
  decimal: (precision: number | null = null, scale = 0): PortableTypeOf<'decimal'> => ({ kind: 'decimal', precision, scale }),
  float: (bytes: 4 | 8 = 8): PortableTypeOf<'float'> => ({ kind: 'float', bytes }),
  /** Unbounded text. */
  text: (): PortableTypeOf<'text'> => ({ kind: 'text', length: null, unit: 'characters', fixed: false }),
  /** At most `length` characters. */
  varchar: (length: number): PortableTypeOf<'text'> => ({ kind: 'text', length, unit: 'characters', fixed: false }),
  /** Exactly `length` characters, blank-padded. */
  char: (length: number): PortableTypeOf<'text'> => ({ kind: 'text', length, unit: 'characters', fixed: true }),
  binary: (length: number | null = null, fixed = false): PortableTypeOf<'binary'> => ({ kind: 'binary', length, fixed }),
  boolean: (): PortableTypeOf<'boolean'> => ({ kind: 'boolean' }),
  date: (): PortableTypeOf<'date'> => ({ kind: 'date' }),
  time: (precision = 6, zone = false): PortableTypeOf<'time'> => ({ kind: 'time', precision, zone }),
  timestamp: (precision = 6, zone = false): PortableTypeOf<'timestamp'> => ({ kind: 'timestamp', precision, zone }),
  interval: (): PortableTypeOf<'interval'> => ({ kind: 'interval' }),
  uuid: (): PortableTypeOf<'uuid'> => ({ kind: 'uuid' }),
  json: (parsed = false): PortableTypeOf<'json'> => ({ kind: 'json', parsed }),
  array: (element: ScalarPortableType): PortableTypeOf<'array'> => ({ kind: 'array', element }),
  native: (engine: string, type: string): PortableTypeOf<'native'> => ({ kind: 'native', engine, type }),
} as const;

/** The type in words, for messages and the type tables: `decimal(38,10)`, `text(40 characters)`, `timestamp(3) with time zone`, `postgres inet`. */
export function describePortableType(type: PortableType): string {
  switch (type.kind) {
    case 'integer':
      return `integer(${type.bytes} bytes)`;
    case 'decimal':
      return type.precision === null ? 'decimal' : `decimal(${type.precision},${type.scale})`;
    case 'float':
      return `float(${type.bytes} bytes)`;
    case 'text':
      return `${type.fixed ? 'fixed ' : ''}text${type.length === null ? '' : `(${type.length} ${type.unit})`}`;
    case 'binary':
      return `${type.fixed ? 'fixed ' : ''}binary${type.length === null ? '' : `(${type.length} bytes)`}`;
    case 'time':
    case 'timestamp':
      return `${type.kind}(${type.precision})${type.zone ? ' with time zone' : ''}`;
    case 'json':
      return type.parsed ? 'json (parsed)' : 'json';
    case 'array':
      return `array of ${describePortableType(type.element)}`;
    case 'native':
      return `${type.engine} ${type.type}`;
    case 'boolean':
    case 'date':
    case 'interval':
    case 'uuid':
      return type.kind;
  }
}

/** True when the two are one type (same kind and parameters). */
export function samePortableType(a: PortableType, b: PortableType): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const fields = value as Record<string, unknown>;
  return `{${Object.keys(fields)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(fields[key])}`)
    .join(',')}}`;
}

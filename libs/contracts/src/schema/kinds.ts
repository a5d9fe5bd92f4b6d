import { FormatRegistry, Type, type TLiteral, type TObject, type TProperties, type TSchema, type TUnion } from '@sinclair/typebox';

/**
 * The building blocks of message schemas. Each carries `problem`, the wording a guard reports for a value
 * that does not fit it (`<path>: <problem>`), so that the schema that types a field also explains it.
 */
declare module '@sinclair/typebox' {
  interface SchemaOptions {
    /** What a value at this place must be, e.g. `must be a non-empty string`. */
    problem?: string;
    /** For a union of objects: the property whose literal names the variant (see `Variants`). */
    discriminator?: string;
    /** For such a union: what the discriminator must be, e.g. `must be 'seed' or 'changes'`. */
    discriminatorProblem?: string;
  }
}

const ISO_TIMESTAMP = 'svc-iso-timestamp';
FormatRegistry.Set(ISO_TIMESTAMP, (value) => !Number.isNaN(Date.parse(value)));

const quoted = (values: readonly string[]) => values.map((value) => `'${value}'`);

export const Text = () => Type.String({ minLength: 1, problem: 'must be a non-empty string' });
export const AnyText = () => Type.String({ problem: 'must be a string' });
export const Flag = () => Type.Boolean({ problem: 'must be true or false' });
export const Count = () => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, problem: 'must be an integer >= 0' });
export const PositiveCount = () => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, problem: 'must be an integer >= 1' });
export const FiniteNumber = () => Type.Number({ minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE, problem: 'must be a number' });
export const Timestamp = () => Type.String({ format: ISO_TIMESTAMP, problem: 'must be an ISO timestamp' });
export const Matching = (pattern: RegExp, problem: string) => Type.String({ pattern: pattern.source, problem });
export const TextList = () => Type.Array(Text(), { problem: 'must be a list' });
export const NonEmptyList = <T extends TSchema>(item: T) => Type.Array(item, { minItems: 1, problem: 'must be a non-empty list' });
export const Struct = <P extends TProperties>(properties: P) => Type.Object(properties, { problem: 'must be an object' });

/** One of a fixed set of words. */
export function OneOf<const V extends readonly [string, ...string[]]>(values: V, problem = `must be one of ${quoted(values).join(', ')}`): TUnion<TLiteral<V[number]>[]> {
  return Type.Union(
    values.map((value: V[number]) => Type.Literal(value)),
    { problem },
  );
}

/**
 * A union of objects told apart by one literal property, e.g. a batch body by `kind`: a guard checks the
 * value against the variant its `discriminator` names and reports that variant's problems, or that the
 * discriminator itself is not one of the known words.
 */
export function Variants<const T extends TObject[]>(discriminator: string, variants: [...T]): TUnion<T> {
  const words = variants.map((variant) => (variant.properties[discriminator] as TLiteral<string> | undefined)?.const ?? '?');
  const wording = words.length === 2 ? `${quoted(words)[0]} or ${quoted(words)[1]}` : `one of ${quoted(words).join(', ')}`;
  return Type.Union<T>(variants, { discriminator, problem: 'must be an object', discriminatorProblem: `must be ${wording}` }) as TUnion<T>;
}

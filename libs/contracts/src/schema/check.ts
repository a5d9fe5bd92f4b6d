import { type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

/** A message that passed its check, typed; or every problem found, each as `<path>: <what it must be>`. */
export type Guarded<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Checks the parts of a message its schema cannot express (one field depending on another); `<path>: <problem>` each. */
export type Refinement = (message: Record<string, unknown>) => string[];

export interface CheckerOptions {
  /** The value returned is a copy holding only the fields the schema names (for requests passed on as they are). */
  dropUnknownFields?: boolean;
}

interface Problem {
  /** The position of the field in the schema's declaration order, so problems read top to bottom. */
  order: number[];
  text: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The guard of one message type, derived from the schema its TypeScript type is derived from: a compiled
 * check for the valid case, and on failure the schema's own `problem` wording for every field that does
 * not fit. Unknown extra fields are allowed (a v1 payload may grow additively).
 */
export function checkerOf<S extends TSchema>(schema: S, refinement?: Refinement, options: CheckerOptions = {}): (message: unknown) => Guarded<Static<S>> {
  const compiled = TypeCompiler.Compile(schema);
  return (message: unknown) => {
    if (!isRecord(message)) return { ok: false, problems: ['message: must be an object'] };
    const extra = refinement?.(message) ?? [];
    if (extra.length === 0 && compiled.Check(message)) {
      return { ok: true, value: options.dropUnknownFields ? (Value.Clean(schema, structuredClone(message))) : message };
    }
    const found = problemsOf(schema, message, '', []);
    const texts = found.sort((a, b) => compareOrder(a.order, b.order)).map((problem) => problem.text);
    return { ok: false, problems: unique([...texts, ...extra]) };
  };
}

function problemsOf(schema: TSchema, value: unknown, basePath: string, baseOrder: number[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    const segments = error.path.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
    const { path, order } = locate(schema, value, segments, basePath, baseOrder);
    if (seen.has(path)) continue;
    seen.add(path);
    const here = valueAt(value, segments);
    const { discriminator } = error.schema;
    if (discriminator !== undefined && isRecord(here)) {
      problems.push(...variantProblems(error.schema, here, discriminator, path, order));
    } else {
      problems.push({ order, text: `${path}: ${error.schema.problem ?? 'is not valid'}` });
    }
  }
  return problems;
}

function variantProblems(union: TSchema, value: Record<string, unknown>, discriminator: string, path: string, order: number[]): Problem[] {
  const variant = variantOf(union, value, discriminator);
  if (variant === undefined) return [{ order, text: `${path}.${discriminator}: ${union.discriminatorProblem ?? 'is not valid'}` }];
  return problemsOf(variant.schema, value, path, [...order, variant.index]);
}

function variantOf(union: TSchema, value: unknown, discriminator: string): { schema: TSchema; index: number } | undefined {
  if (!isRecord(value)) return undefined;
  const variants = (union['anyOf'] ?? []) as TSchema[];
  const index = variants.findIndex((variant) => (variant['properties'] as Record<string, TSchema> | undefined)?.[discriminator]?.['const'] === value[discriminator]);
  return index < 0 ? undefined : { schema: variants[index], index };
}

/** The dotted path (`batch.definition.columns[1].name`) and declaration order of a JSON-pointer location. */
function locate(schema: TSchema, value: unknown, segments: string[], basePath: string, baseOrder: number[]): { path: string; order: number[] } {
  let path = basePath;
  const order = [...baseOrder];
  let current: TSchema | undefined = schema;
  let here: unknown = value;
  for (const segment of segments) {
    if (Array.isArray(here)) {
      path += `[${segment}]`;
      order.push(Number(segment));
      current = current?.['items'] as TSchema | undefined;
    } else {
      path += path === '' ? segment : `.${segment}`;
      const chosen: TSchema | undefined = current?.discriminator !== undefined ? variantOf(current, here, current.discriminator)?.schema : current;
      const properties = (chosen?.['properties'] ?? {}) as Record<string, TSchema>;
      const index = Object.keys(properties).indexOf(segment);
      order.push(index < 0 ? Number.MAX_SAFE_INTEGER : index);
      current = properties[segment];
    }
    here = isRecord(here) || Array.isArray(here) ? (here as Record<string, unknown>)[segment] : undefined;
  }
  return { path, order };
}

function valueAt(value: unknown, segments: string[]): unknown {
  let here = value;
  for (const segment of segments) here = isRecord(here) || Array.isArray(here) ? (here as Record<string, unknown>)[segment] : undefined;
  return here;
}

function compareOrder(a: number[], b: number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

function unique(texts: string[]): string[] {
  return [...new Set(texts)];
}

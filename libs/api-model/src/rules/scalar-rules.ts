import { type FieldRule, quoted, shapeProblem } from './field-rule';

/** Seed integers are 32-bit; anything larger is a typo, not a setting. */
export const MAX_INTEGER = 2_147_483_647;

/** Whole numbers from 1; JSON examples write them as strings ("10"), XML always does. */
export const positiveInteger: FieldRule = {
  doc: { type: 'integer', rule: `a whole number from 1 to ${MAX_INTEGER}` },
  coerce(raw) {
    if (typeof raw === 'string' && /^\s*\+?\d+\s*$/.test(raw)) return Number(raw.trim());
    return raw;
  },
  problem(value) {
    const shape = shapeProblem(value);
    if (shape) return shape;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_INTEGER) return null;
    return `invalid value ${quoted(value)}. Must be a whole number from 1 to ${MAX_INTEGER}`;
  },
};

/** The seed's boolean-like strings: `true` or `false`, in any case. */
export const booleanText: FieldRule = {
  doc: { type: 'boolean', rule: 'true or false (any case)' },
  coerce(raw) {
    if (typeof raw !== 'string') return raw;
    const word = raw.trim().toLowerCase();
    if (word === 'true') return true;
    if (word === 'false') return false;
    return raw;
  },
  problem(value) {
    const shape = shapeProblem(value);
    if (shape) return shape;
    return typeof value === 'boolean' ? null : `invalid value ${quoted(value)}. Must be true or false`;
  },
};

/** One of a fixed list of words, matched without regard to case or repeated spaces, returned canonically spelt. */
export function oneOf(choices: readonly string[]): FieldRule {
  const byKey = new Map(choices.map((choice) => [matchKey(choice), choice]));
  return {
    doc: { type: 'text', rule: `one of ${choices.join(', ')} (any case)` },
    coerce(raw) {
      if (typeof raw !== 'string') return raw;
      return byKey.get(matchKey(raw)) ?? raw;
    },
    problem(value) {
      const shape = shapeProblem(value);
      if (shape) return shape;
      if (typeof value === 'string' && choices.includes(value)) return null;
      return `invalid value ${quoted(value)}. Must be one of ${choices.join(', ')}`;
    },
  };
}

function matchKey(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Whole numbers from `min` to `max`, read like positiveInteger. */
export function integerBetween(min: number, max: number): FieldRule {
  return {
    doc: { type: 'integer', rule: `a whole number from ${min} to ${max}` },
    coerce: (raw) => positiveInteger.coerce(raw),
    problem(value) {
      const shape = shapeProblem(value);
      if (shape) return shape;
      if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return null;
      return `invalid value ${quoted(value)}. Must be a whole number from ${min} to ${max}`;
    },
  };
}

import { type FieldRule, quoted, shapeProblem } from './field-rule';

export interface TextRuleOptions {
  /** Secrets are neither trimmed nor ever quoted back in a message. */
  secret?: boolean;
  /** Applied after trimming, e.g. lower-casing a region. */
  normalise?: (text: string) => string;
  /** Returns the sentence explaining the rule the text breaks, or null when it is fine. */
  check?: (text: string) => string | null;
  /** The rule `check` applies, in words, for the API reference; 'non-empty text' alone when there is no check. */
  rule?: string;
}

/** A non-empty string. Numbers are read as their text (an AccountId may arrive as a JSON number). */
export function textRule(options: TextRuleOptions = {}): FieldRule {
  const { secret = false, normalise = (text: string) => text, check, rule } = options;
  return {
    doc: {
      type: 'text',
      rule: [rule === undefined ? 'non-empty text' : `non-empty text. ${rule}`, secret ? ' (never quoted back in an error)' : ''].join(''),
    },
    coerce(raw) {
      if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
      if (typeof raw !== 'string') return raw;
      return secret ? raw : normalise(raw.trim());
    },
    problem(value) {
      const shape = shapeProblem(value);
      if (shape) return shape;
      if (typeof value !== 'string') return secret ? 'invalid value. Must be text' : `invalid value ${quoted(value)}. Must be text`;
      if (value.length === 0) return 'must not be empty';
      const broken = check?.(value);
      if (!broken) return null;
      return secret ? `invalid value. ${broken}` : `invalid value ${quoted(value)}. ${broken}`;
    },
  };
}

/** Control characters never belong in names, paths or keys. */
export function hasControlCharacter(text: string): boolean {
  return /\p{Cc}/u.test(text);
}

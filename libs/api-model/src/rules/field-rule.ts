/**
 * What a field accepts. `coerce` runs before validation and applies the leniencies of DESIGN §4
 * ("10" → 10, "TRUE" → true, "2 DAYS" → '2 Days'); input it cannot read is returned unchanged so that
 * `problem` can say what is wrong with what the caller actually sent.
 */
export interface FieldRule {
  coerce(raw: unknown): unknown;
  /** The reason a present, coerced value is refused, or null when it is acceptable. */
  problem(value: unknown): string | null;
  /** What the API reference (docs/API.md) says of the rule; never read by validation. */
  doc: RuleDoc;
}

/** A rule in words, written beside the rule so that a change to one shows in the other. */
export interface RuleDoc {
  /** The value's type: 'text', 'integer', 'boolean', 'list of tables', ... */
  type: string;
  /** What is accepted, e.g. 'a whole number from 1 to 2147483647'. */
  rule: string;
}

const MAX_QUOTED_LENGTH = 60;

/** A rejected value as it appears in a message: quoted, on one line, shortened. Never used for secrets. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  const oneLine = text.replace(/[\p{Cc}\p{Cf}]/gu, '?');
  const short = oneLine.length > MAX_QUOTED_LENGTH ? `${oneLine.slice(0, MAX_QUOTED_LENGTH)}…` : oneLine;
  return `'${short}'`;
}

/** C0 and C1 controls (NUL, tab, line breaks, DEL...) and halves of surrogate pairs that lost their other half. */
const UNSTORABLE_CHARACTER = /[\p{Cc}\p{Cs}]/u;

/**
 * The rule every text field shares, checked before the field's own rule: no control characters and no lone
 * surrogates. No setting needs them, PostgreSQL cannot store NUL in text or jsonb, and a line break in a name
 * or URL only hides what follows it. Names the character by code point, never by quoting the text around it.
 */
export function textCharacterProblem(value: unknown): string | null {
  const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  for (const text of texts) {
    const found = UNSTORABLE_CHARACTER.exec(text)?.[0];
    if (found !== undefined) {
      const codePoint = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
      const kind = /\p{Cs}/u.test(found) ? 'an unpaired surrogate' : 'a control character';
      return `invalid value: text must not contain control characters or unpaired surrogates (${kind} ${codePoint} was sent)`;
    }
  }
  return null;
}

/** Refuses a list or a group where a single value belongs. */
export function shapeProblem(value: unknown): string | null {
  if (Array.isArray(value)) return 'must be a single value, not a list';
  if (typeof value === 'object' && value !== null) return 'must be a single value, not a group of fields';
  return null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

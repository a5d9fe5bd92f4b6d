import { NEVER_EXPIRES, OPERATIONS } from '@svc/contracts';
import { type FieldRule, quoted, shapeProblem } from './field-rule';
import { textRule } from './text-rules';

const OPERATION_LIST_SYNTAX = "Write '*' alone, or operation names separated by commas";
const byLowerName = new Map<string, string>(OPERATIONS.map((name) => [name.toLowerCase(), name]));

/**
 * AllowedOperations: `*` alone, or operation names (any case) as comma-separated text or, in JSON, a list.
 * Canonically a list of names as OPERATIONS spells them, each once; the canonical list reads back as itself.
 */
export const allowedOperations: FieldRule = {
  doc: { type: 'list of operations', rule: `${OPERATION_LIST_SYNTAX} (any case; JSON may also give a list of names)` },
  coerce(raw) {
    const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? raw : undefined;
    if (items === undefined) return raw;
    const names = items.map((item) => item.trim());
    if (names.some((name) => name !== '*' && !byLowerName.has(name.toLowerCase()))) return names;
    return [...new Set(names.map((name) => (name === '*' ? name : (byLowerName.get(name.toLowerCase()) ?? name))))];
  },
  problem(value) {
    if (!Array.isArray(value)) return shapeProblem(value) ?? `invalid value ${quoted(value)}. ${OPERATION_LIST_SYNTAX}`;
    if (value.length === 0 || value.every((name) => name === '')) return `must name at least one operation. ${OPERATION_LIST_SYNTAX}`;
    for (const [index, name] of value.entries()) {
      if (typeof name !== 'string' || name === '') return `entry ${index + 1} is empty. ${OPERATION_LIST_SYNTAX}`;
      if (name === '*' && value.length > 1) return "'*' already allows every operation: give it alone";
      if (name !== '*' && !(OPERATIONS as readonly string[]).includes(name)) return `entry ${index + 1} (${quoted(name)}) is not an operation. Operations: ${OPERATIONS.join(', ')}`;
    }
    return null;
  },
};

/** Access key ids are printable, without spaces, commas or slashes (a signature's Credential splits at '/'). */
const ACCESS_KEY_ID_RULE = 'An access key id is 1-128 characters without spaces, commas or slashes';
export const accessKeyId: FieldRule = textRule({
  check: (text) => (/^[^\s/,]{1,128}$/u.test(text) ? null : ACCESS_KEY_ID_RULE),
  rule: ACCESS_KEY_ID_RULE,
});

/** A full ISO 8601 date and time with its offset; kept canonically as UTC (`2027-01-31T00:00:00.000Z`). */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
const TIMESTAMP_SYNTAX = 'Must be an ISO 8601 date and time with its offset, such as 2027-01-31T00:00:00Z';

function canonicalTimestamp(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const text = raw.trim();
  if (!ISO_DATE_TIME.test(text) || Number.isNaN(Date.parse(text))) return raw;
  return new Date(text).toISOString();
}

function timestampProblem(value: unknown): string | null {
  const shape = shapeProblem(value);
  if (shape) return shape;
  if (typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))) return null;
  return `invalid value ${quoted(value)}. ${TIMESTAMP_SYNTAX}`;
}

/** CreateAccessKey's ExpiresAt: a timestamp (whether it is in the future is the registry's check, by its clock). */
export const expiryTimestamp: FieldRule = {
  doc: { type: 'timestamp', rule: `${TIMESTAMP_SYNTAX}; it must be in the future` },
  coerce: canonicalTimestamp,
  problem: timestampProblem,
};

/** UpdateAccessKey's ExpiresAt: a timestamp, or `Never` (any case) to clear the expiry. */
export const expiryOrNever: FieldRule = {
  doc: { type: 'timestamp or Never', rule: `${TIMESTAMP_SYNTAX}, in the future; or ${NEVER_EXPIRES} (any case) to clear the expiry` },
  coerce: (raw) => (typeof raw === 'string' && raw.trim().toLowerCase() === NEVER_EXPIRES.toLowerCase() ? NEVER_EXPIRES : canonicalTimestamp(raw)),
  problem: (value) =>
    value === NEVER_EXPIRES ? null : (timestampProblem(value)?.replace(TIMESTAMP_SYNTAX, `${TIMESTAMP_SYNTAX}, or ${NEVER_EXPIRES}`) ?? null),
};

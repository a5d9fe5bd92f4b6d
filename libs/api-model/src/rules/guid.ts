import { type FieldRule, quoted, shapeProblem } from './field-rule';

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BRACED = /^\{(.*)\}$/s;

/** An id that is a GUID in any case, braces tolerated, kept lower-case without braces; messages call it `idName`. */
export function guidNamed(idName: string): FieldRule {
  const syntax = `${/^[AEIOU]/.test(idName) ? 'An' : 'A'} ${idName} is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301`;
  return {
    doc: { type: 'GUID', rule: `${syntax} (any case, braces allowed)` },
    coerce(raw) {
      if (typeof raw !== 'string') return raw;
      const trimmed = raw.trim();
      const inner = BRACED.exec(trimmed)?.[1] ?? trimmed;
      const lower = inner.toLowerCase();
      return CANONICAL.test(lower) ? lower : raw;
    },
    problem(value) {
      const shape = shapeProblem(value);
      if (shape) return shape;
      if (typeof value === 'string' && CANONICAL.test(value)) return null;
      return `invalid value ${quoted(value)}. ${syntax}`;
    },
  };
}

/** ReplicationId. */
export const guid: FieldRule = guidNamed('ReplicationId');

const MAX_GUIDS = 1000;

/** Comma-separated GUIDs (each in any case, braces allowed), kept as a list of canonical ones; messages call each `idName`. */
export function guidList(idName: string): FieldRule {
  const one = guidNamed(idName);
  return {
    doc: { type: `list of ${idName}s`, rule: `${idName}s separated by commas (each a GUID, any case, braces allowed), at most ${MAX_GUIDS}` },
    coerce(raw) {
      if (typeof raw !== 'string') return raw;
      const items = raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
      return items.map((item) => one.coerce(item));
    },
    problem(value) {
      if (!Array.isArray(value)) return shapeProblem(value) ?? `must be ${idName}s separated by commas`;
      if (value.length === 0) return `must name at least one ${idName}`;
      if (value.length > MAX_GUIDS) return `must name at most ${MAX_GUIDS} ${idName}s`;
      for (const item of value) {
        const problem = one.problem(item);
        if (problem !== null) return problem;
      }
      return null;
    },
  };
}

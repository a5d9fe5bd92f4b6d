import { type FieldRule, quoted, shapeProblem } from './field-rule';

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BRACED = /^\{(.*)\}$/s;

/** An id that is a GUID in any case, braces tolerated, kept lower-case without braces; messages call it `idName`. */
export function guidNamed(idName: string): FieldRule {
  const syntax = `A ${idName} is a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301`;
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

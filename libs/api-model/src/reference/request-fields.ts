import { type Presence } from '../dto/decorators';
import { declaredFields, type CatalogueEntry, type FieldDoc } from '../dto/field-catalogue';

/** One request field as the reference shows it, read from the decorators that validate it. */
export interface RequestField {
  /** Lower camel names from the request root. */
  path: string[];
  type: string;
  presence: string;
  rule: string;
  default: string;
  note: string;
}

/** A field the operation refuses, and why (e.g. a setting that belongs to another operation). */
export interface RefusedField {
  path: string[];
  reason: string;
}

export interface RequestFields {
  fields: RequestField[];
  refused: RefusedField[];
}

/** Every field of `model` and of its groups, in declaration order. */
export function requestFieldsOf(model: abstract new () => object, prefix: string[] = []): RequestFields {
  const result: RequestFields = { fields: [], refused: [] };
  for (const entry of declaredFields(model)) {
    const path = [...prefix, entry.name];
    if (entry.kind === 'notAllowed') {
      result.refused.push({ path, reason: entry.reason });
      continue;
    }
    result.fields.push(rowOf(entry, path));
    if (entry.kind === 'group') {
      const nested = requestFieldsOf(entry.model(), path);
      result.fields.push(...nested.fields);
      result.refused.push(...nested.refused);
    }
  }
  return result;
}

function rowOf(entry: Exclude<CatalogueEntry, { kind: 'notAllowed' }>, path: string[]): RequestField {
  const described = (doc: FieldDoc): Pick<RequestField, 'default' | 'note'> => ({ default: doc.default ?? '', note: doc.note ?? '' });
  switch (entry.kind) {
    case 'group':
      return { path, type: 'group', presence: presenceText(entry.presence), rule: 'the fields below', ...described(entry.doc) };
    case 'field':
      return { path, ...entry.rule.doc, presence: presenceText(entry.presence), ...described(entry.doc) };
    case 'credential':
      return {
        path,
        ...entry.rule.doc,
        presence:
          entry.completeness === 'complete'
            ? `required when AccessType is ${entry.owner}, refused otherwise`
            : `only with AccessType ${entry.owner}`,
        ...described(entry.doc),
      };
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown catalogue entry ${String(unreachable)}`);
    }
  }
}

function presenceText(presence: Presence): string {
  if (presence === 'required' || presence === 'optional') return presence;
  return presence.reason.replace(/^is /, '');
}

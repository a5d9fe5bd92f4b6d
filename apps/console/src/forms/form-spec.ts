/** The fields of a form, described once: the form is drawn from this, its JSON body built from it, its errors placed by it. */
export type FieldKind = 'text' | 'secret' | 'integer' | 'boolean' | 'choice';

export interface FieldSpec {
  /** PascalCase path as the API's messages name it: `['Warehouse', 'BucketName']` ↔ `{Warehouse\BucketName}`. */
  path: readonly string[];
  kind: FieldKind;
  /** What the field means, in a few words. */
  hint: string;
  /** Values of a choice. */
  choices?: readonly string[];
  /** Preset value of a Create field. */
  initial?: string;
  /** A boolean or choice left at '' is not sent (Alter: "unchanged"). */
  optional?: boolean;
}

/** `Warehouse\BucketName`: the field label of the API's `{...}` messages. */
export function fieldLabel(field: Pick<FieldSpec, 'path'>): string {
  return field.path.join('\\');
}

/** The form control's name: the JSON path, `warehouse.bucketName`. */
export function controlName(field: Pick<FieldSpec, 'path'>): string {
  return field.path.map(lowerFirst).join('.');
}

/**
 * The API reference the gateway serves beside the console (generated from docs/API.md by `npm run build`), and the
 * anchor of an operation or of one of its fields there: `./api-reference.html#createwarehousereplication-warehouse-bucketname`.
 */
export const API_REFERENCE_PAGE = './api-reference.html';

export function referenceHref(operation: string, field?: Pick<FieldSpec, 'path'>): string {
  return `${API_REFERENCE_PAGE}#${[operation, ...(field?.path ?? [])].join('-').toLowerCase()}`;
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * The JSON request from what the form holds: empty fields are left out (the server names a missing required one
 * beside its field), integers are sent as numbers when they are numbers and as typed otherwise (the server explains),
 * booleans as true/false. `fixed` fields (ReplicationId) are merged in first.
 */
export function formBody(fields: readonly FieldSpec[], values: ReadonlyMap<string, string>, fixed: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { ...fixed };
  for (const field of fields) {
    const raw = values.get(controlName(field)) ?? '';
    const value = field.kind === 'secret' ? raw : raw.trim();
    if (value === '') continue;
    let group = body;
    for (const name of field.path.slice(0, -1).map(lowerFirst)) {
      const next = group[name];
      group = (typeof next === 'object' && next !== null ? next : (group[name] = {})) as Record<string, unknown>;
    }
    group[lowerFirst(field.path[field.path.length - 1] ?? '')] = typed(field.kind, value);
  }
  return body;
}

function typed(kind: FieldKind, value: string): unknown {
  if (kind === 'integer') return /^-?\d+$/.test(value) ? Number(value) : value;
  if (kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

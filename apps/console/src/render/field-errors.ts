/** The server's messages by the field they name: `{Warehouse\BucketName}: reason` (DESIGN §4, seed §7). */
export interface FieldErrors {
  /** Field label (`Warehouse\BucketName`, `TablesToInclude`) → its reasons. */
  byField: Map<string, string[]>;
  /** Messages that name no field, or a field the form does not show. */
  general: string[];
}

const FIELD_MESSAGE = /^\{([^{}]+)\}:\s*(.*)$/s;

/** The field a message names (`Warehouse\BucketName`), or null. */
export function fieldNamed(message: string): string | null {
  return FIELD_MESSAGE.exec(message)?.[1] ?? null;
}

export function splitFieldErrors(messages: readonly string[], knownFields: ReadonlySet<string>): FieldErrors {
  const byField = new Map<string, string[]>();
  const general: string[] = [];
  for (const message of messages) {
    const match = FIELD_MESSAGE.exec(message);
    const field = match?.[1];
    const owner = field === undefined ? undefined : knownFields.has(field) ? field : groupOf(field, knownFields);
    if (owner === undefined) {
      general.push(message);
      continue;
    }
    const reasons = byField.get(owner) ?? [];
    reasons.push(owner === field ? (match?.[2] ?? message) : message);
    byField.set(owner, reasons);
  }
  return { byField, general };
}

/** A message about a group (`{ReseedingSchedule}`) or a field nested deeper than the form goes belongs to the first field shown of that group. */
function groupOf(field: string, knownFields: ReadonlySet<string>): string | undefined {
  const prefix = `${field.split('\\')[0] ?? field}\\`;
  for (const known of knownFields) if (known.startsWith(prefix)) return known;
  return undefined;
}

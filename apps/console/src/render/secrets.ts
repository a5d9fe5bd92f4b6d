import { SECRET_FIELD_NAMES, SECRET_MASK } from '@svc/contracts/browser';

/**
 * Describe already masks the secret fields (libs/contracts SECRET_FIELD_NAMES); the console masks them again whatever
 * arrives, so no secret can reach the page.
 */
export { SECRET_MASK };

export interface ConfigRow {
  /** PascalCase path as the API names it: `Warehouse\BucketName`. */
  label: string;
  value: string;
}

/** The stored configuration as label/value rows, secrets masked, lists joined as the API writes them. */
export function configurationRows(config: object, path: string[] = []): ConfigRow[] {
  const rows: ConfigRow[] = [];
  for (const [key, value] of Object.entries(config)) {
    const label = [...path, pascal(key)];
    if (value === null || value === undefined) continue;
    if (SECRET_FIELD_NAMES.has(key)) rows.push({ label: label.join('\\'), value: SECRET_MASK });
    else if (Array.isArray(value)) rows.push({ label: label.join('\\'), value: value.map(String).join(', ') });
    else if (typeof value === 'object') rows.push(...configurationRows(value as object, label));
    else rows.push({ label: label.join('\\'), value: String(value) });
  }
  return rows;
}

function pascal(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1);
}

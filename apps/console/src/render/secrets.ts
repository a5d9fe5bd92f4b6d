/**
 * Field names that carry a secret (libs/contracts SECRET_FIELD_NAMES; secrets.spec.ts keeps the copies equal).
 * Describe already masks them; the console masks them again whatever arrives, so no secret can reach the page.
 */
export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  'connectionString',
  'sourceConnectionString',
  'destinationConnectionString',
  'password',
  'secretKey',
  'accessKey',
  'url',
]);

export const SECRET_MASK = '********';

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

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Element name of one item of a list, by the list's key. */
const ITEM_ELEMENTS: Record<string, string> = {
  replications: 'Replication',
  tables: 'Table',
  alerts: 'Alert',
  deliveries: 'Delivery',
  alertTargets: 'AlertTarget',
  errors: 'Error',
  // A differing key's columns (DescribeReplicationValidation).
  key: 'Column',
};

/** A document whose root holds `content` rendered field by field. */
export function xmlDocument(rootName: string, content: Record<string, unknown>): string {
  return `${DECLARATION}\n${element(rootName, fieldsOf(content))}`;
}

/**
 * Fields in order, keys turned PascalCase. Null and undefined fields are left out; a list of objects becomes a
 * container with one element per item; a list of plain values (table names) becomes comma-joined text.
 */
export function fieldsOf(record: Record<string, unknown>): string {
  return Object.entries(record)
    .map(([key, value]) => field(key, value))
    .join('');
}

function field(key: string, value: unknown): string {
  const name = pascal(key);
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item === 'object' && item !== null)) {
      const itemName = ITEM_ELEMENTS[key] ?? pascal(key.replace(/s$/, ''));
      return element(name, value.map((item) => element(itemName, fieldsOf(item as Record<string, unknown>))).join(''));
    }
    return element(name, escapeText(value.map(scalarText).join(',')));
  }
  if (typeof value === 'object') return element(name, fieldsOf(value as Record<string, unknown>));
  return element(name, escapeText(scalarText(value)));
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}

export function element(name: string, inner: string): string {
  return inner === '' ? `<${name}/>` : `<${name}>${inner}</${name}>`;
}

function pascal(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1);
}

/** Text content: markup characters escaped, characters XML 1.0 cannot carry replaced by U+FFFD. */
export function escapeText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

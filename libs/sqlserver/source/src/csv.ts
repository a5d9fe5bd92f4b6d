/**
 * A row as CSV in the form the pipeline carries (PostgreSQL's `COPY … (FORMAT csv)`): NULL is an unquoted
 * empty field, an empty string is `""`, a field is quoted when it holds a comma, a quote, a line break or
 * is exactly `\.` (COPY's end-of-data marker), and quotes inside are doubled.
 */
export type RowValue = string | number | null;

export function csvField(value: RowValue): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? numberText(value) : value;
  if (text === '' || text === '\\.' || /[",\r\n]/.test(text)) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

export function csvLine(values: readonly RowValue[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

/** float and real arrive as IEEE doubles: their shortest text that reads back as the same double. */
function numberText(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`SQL Server has no ${value}`);
  return Object.is(value, -0) ? '-0' : String(value);
}

/** One record of the row interchange format (ROW-FORMAT.md): NULL an unquoted empty field, '' a quoted one. */
export function csvRecord(fields: readonly (string | null)[]): string {
  return `${fields.map(csvField).join(',')}\n`;
}

function csvField(value: string | null): string {
  if (value === null) return '';
  if (value === '' || /[",\r\n]/.test(value)) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

import type { TablePhase, TableStatus } from '@svc/contracts';

/** Phases in which a table's seed is over. */
const SETTLED: readonly TablePhase[] = ['Tracking', 'Untracked'];

/** True when every expected table is known and seeded. */
export function seedingFinished(tables: TableStatus[], expectedTables: number): boolean {
  return tables.length >= expectedTables && tables.every((table) => SETTLED.includes(table.phase));
}

/** The first table in phase Error, if any. */
export function failedTable(tables: TableStatus[]): TableStatus | undefined {
  return tables.find((table) => table.phase === 'Error');
}

/** `  12s  [public].[orders] Seeding 8000/40000 · [sales].[order_lines] Pending 0/80000` */
export function progressLine(elapsedMs: number, tables: TableStatus[]): string {
  const seconds = `${Math.round(elapsedMs / 1000)}s`.padStart(5);
  if (tables.length === 0) return `${seconds}  waiting for the service to discover the source's tables`;
  const parts = [...tables]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((table) => `${table.name} ${table.phase} ${table.rowsSeeded}/${table.rowsEstimated}`);
  return `${seconds}  ${parts.join(' · ')}`;
}

/** A plain text table, columns padded to their widest cell. */
export function textTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `1,234,567` */
export function formatCount(value: number): string {
  return grouped.format(value);
}

/** `3.5 rows/s` below 10, else `1,204 rows/s`. */
export function formatRate(rowsPerSecond: number): string {
  return rowsPerSecond < 10 ? `${rowsPerSecond.toFixed(1)} rows/s` : `${formatCount(rowsPerSecond)} rows/s`;
}

/** `45s`, `2m05s`, `3h07m`, `2d04h`: the two largest units, rounded up to whole seconds. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.ceil(totalSeconds));
  if (seconds < 60) return `${seconds}s`;
  const two = (value: number) => String(value).padStart(2, '0');
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${two(seconds % 60)}s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h${two(Math.floor((seconds % 3600) / 60))}m`;
  return `${Math.floor(seconds / 86_400)}d${two(Math.floor((seconds % 86_400) / 3600))}h`;
}

/** `45%`; a fraction just short of 1 shows as 99 %, never as a rounded-up 100 %. */
export function formatPercent(fraction: number): string {
  return `${Math.floor(fraction * 100)}%`;
}

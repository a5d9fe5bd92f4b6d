/** Text for numbers and times as the console shows them; pure. */

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** An axis value: whole from 10, one decimal from 1, else up to three, so ticks of a small scale (0.02, 0.04…) stay distinct. */
export function formatTick(value: number): string {
  const magnitude = Math.abs(value);
  return value.toLocaleString('en-US', { maximumFractionDigits: magnitude >= 10 ? 0 : magnitude >= 1 ? 1 : 3 });
}

/** 42 s, 3 min 5 s, 2 h 10 min, 3 d 4 h. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return whole % 60 ? `${minutes} min ${whole % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

export function formatLag(seconds: number | undefined): string {
  return seconds === undefined ? '—' : formatDuration(seconds);
}

export function formatRate(rowsPerSecond: number): string {
  if (rowsPerSecond >= 100) return `${formatCount(rowsPerSecond)} rows/s`;
  return `${rowsPerSecond.toFixed(1)} rows/s`;
}

/** `12 s ago` relative to `now`; the ISO text itself when it does not parse. */
export function formatAgo(iso: string | undefined, now: Date): string {
  if (iso === undefined) return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return `${formatDuration(Math.max(0, (now.getTime() - at) / 1000))} ago`;
}

/** `2026-11-23 10:15:00 UTC` */
export function formatTimestamp(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function percent(done: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.max(0, (done / total) * 100));
}

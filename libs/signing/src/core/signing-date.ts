const SIGNING_DATE_PATTERN = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** yyyymmddThhmmssZ (ISO 8601 basic form, UTC, whole seconds). */
export function formatSigningDate(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/** Parses yyyymmddThhmmssZ strictly; null for anything else, including impossible dates like 20230230. */
export function parseSigningDate(s: string): Date | null {
  const match = SIGNING_DATE_PATTERN.exec(s);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls over out-of-range fields (month 13, hour 25); a round trip exposes that.
  return formatSigningDate(parsed) === s ? parsed : null;
}

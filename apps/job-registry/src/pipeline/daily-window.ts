/** Seconds since midnight of a `hh:mm:ss AM|PM` time (the API's normalised 12-hour form). */
export function secondsOfDay(time: string): number {
  const match = /^(\d{1,2}):(\d{2}):(\d{2})\s*(AM|PM)$/i.exec(time.trim());
  if (!match) throw new Error(`not a 12-hour time: ${time}`);
  const hours12 = Number(match[1]) % 12;
  const hours = (match[4] ?? '').toUpperCase() === 'PM' ? hours12 + 12 : hours12;
  return hours * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

/**
 * True when `now` (UTC) falls in the daily window [from, to]. A window whose end is before its start
 * crosses midnight (10:00:00 PM – 02:00:00 AM). Without both ends there is no window: always true.
 */
export function withinDailyWindow(now: Date, from: string | undefined, to: string | undefined): boolean {
  if (!from || !to) return true;
  const current = now.getUTCHours() * 3600 + now.getUTCMinutes() * 60 + now.getUTCSeconds();
  const start = secondsOfDay(from);
  const end = secondsOfDay(to);
  return start <= end ? current >= start && current <= end : current >= start || current <= end;
}

/**
 * Date and time arithmetic of the T-SQL expression double (tsql-expression.double.ts), in 100-nanosecond ticks, the
 * finest unit of datetime2, time and datetimeoffset (their data type pages: "accuracy 100 nanoseconds"):
 *   - DATEADD(MICROSECOND, n, d) adds n microseconds; the carry goes into seconds, minutes, hours and days
 *     (https://learn.microsoft.com/en-us/sql/t-sql/functions/dateadd-transact-sql). A result outside 0001-01-01 to
 *     9999-12-31 is an error ("DATEADD ... returns an error if the result is out of range").
 *   - SWITCHOFFSET(dto, '+hh:mm') is the same instant at another offset
 *     (https://learn.microsoft.com/en-us/sql/t-sql/functions/switchoffset-transact-sql).
 */
export interface Clock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** The fractional digits of the value's scale (none at scale 0). */
  fraction: string;
}

const TICKS_PER_SECOND = 10_000_000n;
const SECONDS_PER_DAY = 86_400n;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function ticksOf(clock: Clock): bigint {
  const seconds = BigInt(daysFromCivil(clock.year, clock.month, clock.day)) * SECONDS_PER_DAY + BigInt(clock.hour * 3600 + clock.minute * 60 + clock.second);
  return seconds * TICKS_PER_SECOND + BigInt(clock.fraction.padEnd(7, '0'));
}

/** The clock of `ticks`, with `scale` fractional digits (the ticks must not hold finer digits). */
export function clockOf(ticks: bigint, scale: number): Clock {
  const seconds = ticks / TICKS_PER_SECOND - (ticks % TICKS_PER_SECOND < 0n ? 1n : 0n);
  const rest = ticks - seconds * TICKS_PER_SECOND;
  const days = seconds / SECONDS_PER_DAY - (seconds % SECONDS_PER_DAY < 0n ? 1n : 0n);
  const secondOfDay = Number(seconds - days * SECONDS_PER_DAY);
  const fraction7 = rest.toString().padStart(7, '0');
  if (fraction7.slice(scale).replace(/0/g, '') !== '') throw new Error(`a value with ${scale} fractional digits cannot hold ${fraction7}`);
  const date = civilFromDays(Number(days));
  if (date.year < 1 || date.year > 9999) throw new Error('Adding a value to a datetime2 column caused an overflow (outside 0001-01-01 to 9999-12-31)');
  return {
    ...date,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor((secondOfDay % 3600) / 60),
    second: secondOfDay % 60,
    fraction: fraction7.slice(0, scale),
  };
}

/** DATEADD(MICROSECOND, microseconds, value): the value's own scale kept. */
export function addMicroseconds(clock: Clock, microseconds: number): Clock {
  return clockOf(ticksOf(clock) + BigInt(microseconds) * 10n, clock.fraction.length);
}

/** The same instant at another offset (minutes east of UTC). */
export function switchOffset(clock: Clock, fromOffsetMinutes: number, toOffsetMinutes: number): Clock {
  const ticksPerMinute = 60n * TICKS_PER_SECOND;
  return clockOf(ticksOf(clock) + BigInt(toOffsetMinutes - fromOffsetMinutes) * ticksPerMinute, clock.fraction.length);
}

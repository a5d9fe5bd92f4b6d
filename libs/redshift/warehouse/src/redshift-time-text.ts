/**
 * How a column's dates and times are written for Redshift's COPY (`TIMEFORMAT 'auto' DATEFORMAT 'auto'`), which is
 * documented to read "YYYY-MM-DD", "YYYY-MM-DD HH:MI:SS", "YYYY-MM-DD HH:MI:SSOF, where OF is the offset from UTC" with
 * "fractional seconds up to a microsecond level of detail" (AWS, DATEFORMAT and TIMEFORMAT strings,
 * https://docs.aws.amazon.com/redshift/latest/dg/r_DATEFORMAT_and_TIMEFORMAT_strings.html) and, with 'auto',
 * "YYYY-MM-DD HH:MI:SS+/-TZ | 1997-12-17 07:37:16-08" (https://docs.aws.amazon.com/redshift/latest/dg/automatic-recognition.html).
 * The row format allows more (docs/ROW-FORMAT.md): SQL Server's style 121 writes seven fractional digits and a
 * blank before a datetimeoffset's offset.
 */
export type TimeForm = 'date' | 'time' | 'timetz' | 'timestamp' | 'timestamptz';

export type TimeText = { text: string } | { problem: string };

const MAX_DIGITS = 6;
const SECONDS_A_DAY = 86_400;
const FRACTION = '(?:\\.(\\d+))?';
const CLOCK = `(\\d{2}):(\\d{2}):(\\d{2})${FRACTION}`;
const OFFSET = '( ?)(([+-])(\\d{2})(?::?(\\d{2})(?::?(\\d{2}))?)?)';
const TIME = new RegExp(`^${CLOCK}$`);
const ZONED_TIME = new RegExp(`^${CLOCK}${OFFSET}$`);
const TIMESTAMP = new RegExp(`^(\\d{4,})-(\\d{2})-(\\d{2}) ${CLOCK}$`);
const ZONED_TIMESTAMP = new RegExp(`^(\\d{4,})-(\\d{2})-(\\d{2}) ${CLOCK}${OFFSET}$`);
/** An offset that is already UTC as PostgreSQL writes it under `timezone = UTC`. */
const UTC_OFFSETS = new Set(['+00', '+00:00', '+0000']);

/**
 * `text`, a value of the row format's `form`, as COPY reads it: at most six fractional digits (more are rounded as
 * PostgreSQL's input rounds them, docs/TYPES.md: rint of the fraction read as a double times 10^6, which validation's
 * checksums reproduce), no blank before an offset, a timestamp with a zone as its instant in UTC (`+00`: TIMESTAMPTZ
 * keeps no offset). A value already so is returned as it is. Dates pass as they are.
 */
export function copyTimeText(form: TimeForm, text: string): TimeText {
  switch (form) {
    case 'date':
      return { text };
    case 'time':
    case 'timetz':
      return timeOfDay(form, text);
    case 'timestamp':
    case 'timestamptz':
      return timestamp(form, text);
  }
}

function timeOfDay(form: 'time' | 'timetz', text: string): TimeText {
  const match = (form === 'time' ? TIME : ZONED_TIME).exec(text);
  if (match === null) return { problem: `a time not in the row format's form hh:mm:ss[.fraction]${form === 'timetz' ? '±hh[:mm]' : ''} (docs/ROW-FORMAT.md)` };
  const [, hours, minutes, seconds, fraction = '', blank = '', offset = ''] = match;
  if (fraction.length <= MAX_DIGITS && blank === '') return { text };
  const { carry, digits } = microseconds(fraction);
  const total = Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + carry;
  if (total > SECONDS_A_DAY) return { problem: 'a time past 24:00:00, the end of Redshift\'s TIME' };
  return { text: `${clock(total)}${digits}${offset}` };
}

function timestamp(form: 'timestamp' | 'timestamptz', text: string): TimeText {
  const match = (form === 'timestamp' ? TIMESTAMP : ZONED_TIMESTAMP).exec(text);
  if (match === null) return { problem: `a timestamp not in the row format's form YYYY-MM-DD hh:mm:ss[.fraction]${form === 'timestamptz' ? '±hh[:mm]' : ''} (docs/ROW-FORMAT.md)` };
  const [, year, month, day, hours, minutes, seconds, fraction = '', blank = '', offset = '', sign = '+', offsetHours = '0', offsetMinutes = '0', offsetSeconds = '0'] = match;
  const inUtc = form === 'timestamp' || (blank === '' && UTC_OFFSETS.has(offset));
  if (fraction.length <= MAX_DIGITS && inUtc) return { text };
  if (!isCalendarDate(Number(year), Number(month), Number(day)) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) {
    return { problem: 'a timestamp that is no date and time of the calendar' };
  }
  const { carry, digits } = microseconds(fraction);
  const offsetTotal = form === 'timestamptz' ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) : 0;
  const instant = daysFromCivil(Number(year), Number(month), Number(day)) * SECONDS_A_DAY + Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + carry - offsetTotal;
  const days = Math.floor(instant / SECONDS_A_DAY);
  const [utcYear, utcMonth, utcDay] = civilFromDays(days);
  if (utcYear < 1) return { problem: 'an instant before 0001-01-01 in UTC is a BC timestamp, refused as every BC value is (how COPY reads BC is undocumented)' };
  const date = `${String(utcYear).padStart(4, '0')}-${two(utcMonth)}-${two(utcDay)}`;
  return { text: `${date} ${clock(instant - days * SECONDS_A_DAY)}${digits}${form === 'timestamptz' ? '+00' : ''}` };
}

/**
 * The fraction to the microsecond as PostgreSQL's input makes it (ParseFractionalSecond: rint(strtod(".fffffff") *
 * 1000000), ties to even), and the second it carries: `digits` as written when it has at most six, else six.
 */
function microseconds(fraction: string): { carry: number; digits: string } {
  if (fraction.length <= MAX_DIGITS) return { carry: 0, digits: fraction === '' ? '' : `.${fraction}` };
  const rounded = roundHalfEven(Number(`0.${fraction}`) * 1_000_000);
  return rounded === 1_000_000 ? { carry: 1, digits: '.000000' } : { carry: 0, digits: `.${String(rounded).padStart(MAX_DIGITS, '0')}` };
}

function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const rest = value - floor;
  if (rest > 0.5) return floor + 1;
  if (rest < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

const two = (value: number) => String(value).padStart(2, '0');

/** hh:mm:ss of a number of seconds since midnight (86400 is 24:00:00). */
function clock(seconds: number): string {
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor((seconds % 3600) / 60))}:${two(seconds % 60)}`;
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const [nextYear, nextMonth] = month === 12 ? [year + 1, 1] : [year, month + 1];
  return day <= daysFromCivil(nextYear, nextMonth, 1) - daysFromCivil(year, month, 1);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil), exact for any year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The proleptic Gregorian date of a number of days since 1970-01-01 (civil_from_days). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth + (shiftedMonth < 10 ? 3 : -9);
  return [yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

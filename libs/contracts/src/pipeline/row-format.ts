import type { PortableType, ScalarPortableType } from './portable-type';

/*
 * The row interchange format of batches and staged files (docs/ROW-FORMAT.md): RFC 4180 CSV without a header,
 * one record per row, columns in definition order, NULL an unquoted empty field and an empty string `""`.
 * Each field is the text form of its column's portable kind below; a source engine writes it, a staging or
 * warehouse engine reads it, and none of them owns it. `interchangeTextProblem` is the format's definition
 * in code: the source engines' tests check what they write against it.
 */

const DIGITS = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_NUMBERS = new Set(['NaN', 'Infinity', '-Infinity']);
const BOOLEAN = new Set(['t', 'f', 'true', 'false']);
const INFINITE_TIME = new Set(['infinity', '-infinity']);
const DATE = '\\d{4,}-\\d{2}-\\d{2}';
const TIME = '\\d{2}:\\d{2}:\\d{2}(?:\\.(\\d{1,9}))?';
const OFFSET = ' ?[+-]\\d{2}(?::?\\d{2}(?::?\\d{2})?)?';
const ERA = '(?: BC)?';
const DATE_TEXT = new RegExp(`^${DATE}${ERA}$`);
const TIME_TEXT = new RegExp(`^${TIME}$`);
const ZONED_TIME_TEXT = new RegExp(`^${TIME}${OFFSET}$`);
const TIMESTAMP_TEXT = new RegExp(`^${DATE} ${TIME}${ERA}$`);
const ZONED_TIMESTAMP_TEXT = new RegExp(`^${DATE} ${TIME}${OFFSET}${ERA}$`);
/** ISO 8601 durations as PostgreSQL's iso_8601 IntervalStyle writes them: P1Y2M3DT4H5M6.5S, PT-1H, P-1D, PT0S. */
const INTERVAL_TEXT = /^P(?!$)(?:-?\d+Y)?(?:-?\d+M)?(?:-?\d+W)?(?:-?\d+D)?(?:T(?=-?\d)(?:-?\d+H)?(?:-?\d+M)?(?:-?\d+(?:\.\d+)?S)?)?$/;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BINARY_TEXT = /^\\x(?:[0-9a-fA-F]{2})*$/;
const INTEGER_RANGE: Readonly<Record<2 | 4 | 8, readonly [bigint, bigint]>> = {
  2: [-(2n ** 15n), 2n ** 15n - 1n],
  4: [-(2n ** 31n), 2n ** 31n - 1n],
  8: [-(2n ** 63n), 2n ** 63n - 1n],
};

/**
 * What is wrong with `text` as a (non-NULL) field of a column of `type`; null when it is in the format. Checks
 * the form, not every limit: a length is the writer's business, a date's calendar the reader's.
 */
export function interchangeTextProblem(type: PortableType, text: string): string | null {
  if (type.kind === 'array') return text.startsWith('{') && text.endsWith('}') ? null : 'an array is written {element,…} (PostgreSQL array text)';
  return scalarTextProblem(type, text);
}

function scalarTextProblem(type: ScalarPortableType, text: string): string | null {
  switch (type.kind) {
    case 'integer': {
      if (!DIGITS.test(text)) return 'an integer is written in decimal digits with an optional sign';
      const [min, max] = INTEGER_RANGE[type.bytes];
      const value = BigInt(text);
      return value < min || value > max ? `${text} does not fit ${type.bytes} bytes` : null;
    }
    case 'decimal':
      return DECIMAL.test(text) || SPECIAL_NUMBERS.has(text) ? null : 'a decimal is written in digits with an optional sign and point, no exponent (or NaN, Infinity, -Infinity)';
    case 'float':
      return FLOAT.test(text) || SPECIAL_NUMBERS.has(text) ? null : 'a float is written as its shortest round-trip decimal, exponent allowed (or NaN, Infinity, -Infinity)';
    case 'boolean':
      return BOOLEAN.has(text) ? null : "a boolean is written t, f, true or false";
    case 'date':
      return DATE_TEXT.test(text) || INFINITE_TIME.has(text) ? null : 'a date is written YYYY-MM-DD (BC after it), or infinity';
    case 'time':
      return fractionProblem((type.zone ? ZONED_TIME_TEXT : TIME_TEXT).exec(text), type.precision, type.zone ? 'hh:mm:ss[.fraction]±hh[:mm]' : 'hh:mm:ss[.fraction]');
    case 'timestamp':
      if (INFINITE_TIME.has(text)) return null;
      return fractionProblem(
        (type.zone ? ZONED_TIMESTAMP_TEXT : TIMESTAMP_TEXT).exec(text),
        type.precision,
        type.zone ? 'YYYY-MM-DD hh:mm:ss[.fraction]±hh[:mm]' : 'YYYY-MM-DD hh:mm:ss[.fraction]',
      );
    case 'interval':
      return INTERVAL_TEXT.test(text) ? null : 'an interval is written as an ISO 8601 duration (P1Y2M3DT4H5M6.5S)';
    case 'uuid':
      return UUID_TEXT.test(text) ? null : 'a uuid is written in lowercase 8-4-4-4-12 hex';
    case 'binary':
      return BINARY_TEXT.test(text) ? null : 'binary is written \\x and two hex digits a byte';
    case 'text':
    case 'json':
    case 'native':
      return null;
  }
}

function fractionProblem(match: RegExpExecArray | null, precision: number, form: string): string | null {
  if (match === null) return `written ${form}`;
  const fraction = match[1] ?? '';
  return fraction.length > precision ? `${fraction.length} fractional digits, more than the type's ${precision}` : null;
}

import { type FieldRule, quoted, shapeProblem } from './field-rule';

const CANONICAL = /^(0[1-9]|1[0-2]):[0-5]\d:[0-5]\d (AM|PM)$/;
const TIME_SYNTAX = 'A time is hh:mm:ss AM or hh:mm:ss PM (hours 1-12), e.g. 02:00:00 AM';
const LENIENT = /^(\d{1,2}):(\d{2}):(\d{2})\s*([AP]M)$/i;

/** 12-hour clock text `hh:mm:ss AM|PM`; `2:00:00 am` is read as `02:00:00 AM`. */
export const clockTime: FieldRule = {
  doc: { type: 'time of day', rule: `${TIME_SYNTAX}; 2:00:00 am is read as 02:00:00 AM` },
  coerce(raw) {
    if (typeof raw !== 'string') return raw;
    const match = LENIENT.exec(raw.trim());
    if (!match) return raw;
    const [, hours = '', minutes = '', seconds = '', half = ''] = match;
    const canonical = `${hours.padStart(2, '0')}:${minutes}:${seconds} ${half.toUpperCase()}`;
    return CANONICAL.test(canonical) ? canonical : raw;
  },
  problem(value) {
    const shape = shapeProblem(value);
    if (shape) return shape;
    if (typeof value === 'string' && CANONICAL.test(value)) return null;
    return `invalid value ${quoted(value)}. ${TIME_SYNTAX}`;
  },
};

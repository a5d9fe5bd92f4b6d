import { EngineError } from '@svc/engines';
import { quoteIdent } from './quoting';

/*
 * The PostgreSQL types staging and warehouse DDL may name, in format_type's spelling. Type text is spliced into
 * DDL, and a source's catalog cannot be trusted with it: a `format_type` earlier on the source role's search_path,
 * or a server that answers what it likes, can write `integer default pg_sleep(86400)`. So a type is declared only
 * when its whole text is one of these built-in types, each modifier a number in the range PostgreSQL allows.
 */

/** PostgreSQL's numeric: "The maximum precision … is 1000", and the scale from -1000 to 1000. */
const MAX_NUMERIC_DIGITS = 1000;
/** character(n), character varying(n): "n … cannot exceed 10,485,760". */
const MAX_CHARACTERS = 10_485_760;
/** bit(n), bit varying(n): "bit length … exceeds maximum (83886080)". */
const MAX_BITS = 83_886_080;
/** Fractional digits of seconds of time, timestamp and interval: 0 to 6. */
const MAX_SECOND_DIGITS = 6;

/** Built-in types that take no modifier (or are declared without one), as format_type writes them. */
const PLAIN_TYPES: ReadonlySet<string> = new Set([
  'smallint', 'integer', 'bigint', 'numeric', 'real', 'double precision', 'text', 'character varying', 'bpchar', '"char"', 'name', 'bytea',
  'boolean', 'date', 'time without time zone', 'time with time zone', 'timestamp without time zone', 'timestamp with time zone', 'interval',
  'uuid', 'json', 'jsonb', 'jsonpath', 'xml', 'money', 'inet', 'cidr', 'macaddr', 'macaddr8', 'bit', 'bit varying',
  'point', 'line', 'lseg', 'box', 'path', 'polygon', 'circle', 'tsvector', 'tsquery', 'oid', 'xid', 'xid8', 'cid', 'tid', 'pg_lsn', 'pg_snapshot', 'txid_snapshot',
  'int4range', 'int8range', 'numrange', 'tsrange', 'tstzrange', 'daterange',
  'int4multirange', 'int8multirange', 'nummultirange', 'tsmultirange', 'tstzmultirange', 'datemultirange',
]);

/** A modifier as format_type writes it: no sign but where allowed, no leading zeros. */
const NUMBER = '(0|[1-9][0-9]*)';
const SIGNED = '(0|-?[1-9][0-9]*)';
const INTERVAL_FIELDS = 'year|month|day|hour|minute|second|year to month|day to hour|day to minute|day to second|hour to minute|hour to second|minute to second';

const within = (value: number, minimum: number, maximum: number) => value >= minimum && value <= maximum;

/** Built-in types with modifiers: the text's pattern, and whether the modifiers it captured are in range. */
const MODIFIED_TYPES: readonly { pattern: RegExp; valid: (captured: readonly (string | undefined)[]) => boolean }[] = [
  {
    pattern: new RegExp(`^numeric\\(${NUMBER}(?:,${SIGNED})?\\)$`),
    valid: ([precision, scale = '0']) => within(Number(precision), 1, MAX_NUMERIC_DIGITS) && within(Number(scale), -MAX_NUMERIC_DIGITS, MAX_NUMERIC_DIGITS),
  },
  { pattern: new RegExp(`^character(?: varying)?\\(${NUMBER}\\)$`), valid: ([length]) => within(Number(length), 1, MAX_CHARACTERS) },
  { pattern: new RegExp(`^bit(?: varying)?\\(${NUMBER}\\)$`), valid: ([length]) => within(Number(length), 1, MAX_BITS) },
  { pattern: new RegExp(`^(?:time|timestamp)\\(${NUMBER}\\) with(?:out)? time zone$`), valid: ([digits]) => within(Number(digits), 0, MAX_SECOND_DIGITS) },
  {
    // interval(3), interval year to month, interval day to second(0): a precision only where seconds are.
    pattern: new RegExp(`^interval(?: (${INTERVAL_FIELDS}))?(?:\\(${NUMBER}\\))?$`),
    valid: ([fields, digits]) => digits === undefined || ((fields === undefined || fields.endsWith('second')) && within(Number(digits), 0, MAX_SECOND_DIGITS)),
  },
];

/** The rule, as errors word it. */
const BUILT_IN_TYPE_RULE =
  'only PostgreSQL built-in types are declared (arrays of them too), each modifier checked: numeric(p,s), character varying(n), character(n), bit(n), time(p), timestamp(p), interval fields and precision';

/** Whether `text` is a built-in scalar type (no array brackets) as format_type spells it, its modifiers in range. */
export function isBuiltInScalarType(text: string): boolean {
  if (PLAIN_TYPES.has(text)) return true;
  return MODIFIED_TYPES.some(({ pattern, valid }) => {
    const match = pattern.exec(text);
    return match !== null && valid(match.slice(1));
  });
}

/** Whether `text` is a built-in type or an array of one (`integer[]`, `inet[][]`). */
export function isBuiltInType(text: string): boolean {
  return isBuiltInScalarType(text.replace(/(?:\[\])+$/, ''));
}

/**
 * A type staging or a warehouse would have declared that is no built-in type: a table definition whose source
 * (or whatever wrote it) named something else. The table stops; the text itself is only the failure's detail.
 */
export class UnsupportedPostgresTypeError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;
  override readonly valueDetail: string;

  constructor(column: string | null, readonly typeText: string) {
    super(`${column === null ? 'a column' : `column ${quoteIdent(column)}`} has a type PostgreSQL staging and warehouses do not declare: ${BUILT_IN_TYPE_RULE}`);
    this.name = 'UnsupportedPostgresTypeError';
    this.valueDetail = `type text: ${JSON.stringify(typeText)}`;
  }
}

/** `text` trimmed when it is a built-in type (see isBuiltInType); else UnsupportedPostgresTypeError naming the column. */
export function checkedBuiltInType(column: string | null, text: string): string {
  const type = text.trim();
  if (!isBuiltInType(type)) throw new UnsupportedPostgresTypeError(column, text);
  return type;
}

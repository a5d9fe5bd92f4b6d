import { isEngineError } from '@svc/engines';
import { UnsupportedPostgresTypeError, checkedBuiltInType, isBuiltInType } from './built-in-types';

describe('built-in PostgreSQL types: the only type text DDL splices', () => {
  it.each([
    'integer',
    'double precision',
    'numeric',
    'numeric(1)',
    'numeric(38,10)',
    'numeric(5,-2)',
    'numeric(5,7)',
    'numeric(1000,-1000)',
    'character varying',
    'character varying(10485760)',
    'character(1)',
    'bpchar',
    '"char"',
    'time(0) without time zone',
    'timestamp(6) with time zone',
    'timestamp with time zone',
    'interval',
    'interval(3)',
    'interval second(6)',
    'interval day to second(0)',
    'interval year to month',
    'bit',
    'bit(83886080)',
    'bit varying',
    'bit varying(5)',
    'inet',
    'tstzmultirange',
    'pg_lsn',
    'integer[]',
    '"char"[]',
    'inet[][]',
  ])('accepts %s', (type) => {
    expect(isBuiltInType(type)).toBe(true);
  });

  it.each([
    ['a default after the type', 'integer default pg_sleep(86400)'],
    ['a statement after the type', 'integer); drop table x; --'],
    ['a constraint', 'integer generated always as identity'],
    ['a collation', 'text collate "C"'],
    ['a user-defined type', 'public.mood'],
    ['a quoted name', '"mood"'],
    ['a type naming the source\'s objects', 'regclass'],
    ['nothing', ''],
    ['three modifiers', 'numeric(1,2,3)'],
    ['a precision of 0', 'numeric(0)'],
    ['a precision over 1000', 'numeric(1001,0)'],
    ['a scale under -1000', 'numeric(10,-1001)'],
    ['a leading zero', 'numeric(010,2)'],
    ['a length of 0', 'character varying(0)'],
    ['a length over 10485760', 'character(10485761)'],
    ['a bit length over 83886080', 'bit(83886081)'],
    ['7 fractional digits', 'timestamp(7) with time zone'],
    ['a precision without seconds', 'interval year(2)'],
    ['interval fields that are none', 'interval week'],
    ['upper case', 'INTEGER'],
    ['a space before the brackets', 'integer []'],
    ['an array of a type that is none', 'integer default 1[]'],
  ])('refuses %s', (_name, type) => {
    expect(isBuiltInType(type)).toBe(false);
  });

  it('refuses naming the column and the rule; the type text is the detail only keys allowed details read', () => {
    const refusal = (() => {
      try {
        checkedBuiltInType('Amount "due"', 'integer default pg_sleep(86400)');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(UnsupportedPostgresTypeError);
    expect(isEngineError(refusal, 'statement-failed')).toBe(true);
    const error = refusal as UnsupportedPostgresTypeError;
    expect(error.message).toMatch(/^column "Amount ""due""" has a type PostgreSQL staging and warehouses do not declare: only PostgreSQL built-in types are declared/);
    expect(error.message).not.toContain('pg_sleep');
    expect(error.valueDetail).toBe('type text: "integer default pg_sleep(86400)"');
  });

  it('gives back the type trimmed', () => {
    expect(checkedBuiltInType('c', ' numeric(12,2) ')).toBe('numeric(12,2)');
  });
});

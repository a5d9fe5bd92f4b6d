import { Portable, type PortableType } from '@svc/contracts';
import { UnsupportedPostgresTypeError } from './built-in-types';
import { declaredPostgresType, portableTypeOfPostgres, postgresColumnType } from './portable-types';

describe('PostgreSQL types and portable types', () => {
  it.each<[string, PortableType]>([
    ['smallint', Portable.smallint()],
    ['bigint', Portable.bigint()],
    ['numeric(38,10)', Portable.decimal(38, 10)],
    ['numeric(5,-2)', Portable.decimal(5, -2)],
    ['numeric', Portable.decimal()],
    ['real', Portable.float(4)],
    ['character varying', Portable.text()],
    ['character varying(40)', Portable.varchar(40)],
    ['character(1)', Portable.char(1)],
    ['time(3) with time zone', Portable.time(3, true)],
    ['timestamp without time zone', Portable.timestamp(6)],
    ['timestamp(0) with time zone', Portable.timestamp(0, true)],
    ['interval', Portable.interval()],
    ['interval(3)', Portable.native('postgres', 'interval(3)')],
    ['interval day to second(0)', Portable.native('postgres', 'interval day to second(0)')],
    ['jsonb', Portable.json(true)],
    ['integer[]', Portable.array(Portable.integer())],
    ['character varying(10)[]', Portable.array(Portable.varchar(10))],
    ['"char"', Portable.native('postgres', '"char"')],
    ['bit varying(5)', Portable.native('postgres', 'bit varying(5)')],
    ['inet[]', Portable.array(Portable.native('postgres', 'inet'))],
  ])('reads %s as %j', (text, type) => {
    expect(portableTypeOfPostgres(text)).toEqual(type);
  });

  // A catalog's text is no type to declare unless it is a built-in one: whatever a hostile format_type wrote travels as text.
  it.each<[string, PortableType]>([
    ['integer default pg_sleep(86400)', Portable.text()],
    ['integer generated always as identity', Portable.text()],
    ['integer); drop table x; --', Portable.text()],
    ['interval(3) default now', Portable.text()],
    ['regclass', Portable.text()],
    ['integer default pg_sleep(86400)[]', Portable.array(Portable.text())],
  ])('reads %j, no built-in type, as %j', (text, type) => {
    expect(portableTypeOfPostgres(text)).toEqual(type);
  });

  it.each<[string, PortableType]>([
    ['a native type with a default', Portable.native('postgres', 'integer default pg_sleep(86400)')],
    ['a native type with a statement', Portable.native('postgres', 'integer); drop table x; --')],
    ['an array of a native type with a default', Portable.array(Portable.native('postgres', 'inet default pg_sleep(86400)'))],
    ['a native type out of range', Portable.native('postgres', 'bit(0)')],
  ])('refuses to declare %s, naming the column', (_name, portableType) => {
    expect(() => postgresColumnType(portableType, 'c')).toThrow(UnsupportedPostgresTypeError);
    expect(() => declaredPostgresType({ name: 'c', portableType })).toThrow(/^column "c" has a type PostgreSQL staging and warehouses do not declare/);
  });

  it.each<[PortableType, string, RegExp | null]>([
    [Portable.time(7), 'time without time zone', /past the 6th digit are rounded/],
    [Portable.timestamp(9, true), 'timestamp with time zone', /rounded.*original offset is not kept/],
    [Portable.timestamp(6, true), 'timestamp with time zone', /original offset is not kept/],
    [Portable.time(6, true), 'time with time zone', null],
    [{ kind: 'text', length: 100, unit: 'bytes', fixed: false }, 'character varying(100)', null],
    [Portable.varchar(20_000_000), 'text', null],
    [Portable.binary(8, true), 'bytea', null],
    [Portable.native('sqlserver', 'sql_variant'), 'text', /sqlserver text form/],
    [Portable.array(Portable.native('sqlserver', 'hierarchyid')), 'text[]', /sqlserver text form/],
  ])('declares %j as %s', (type, declared, lost) => {
    const column = postgresColumnType(type);
    expect(column.type).toBe(declared);
    if (lost === null) expect(column.lost).toBeNull();
    else expect(column.lost).toMatch(lost);
  });
});

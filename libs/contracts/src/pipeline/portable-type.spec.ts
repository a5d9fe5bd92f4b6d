import { guardColumnDefinition } from './guards';
import { Portable, describePortableType, samePortableType, type PortableType } from './portable-type';

describe('PortableType', () => {
  it.each<[PortableType, string]>([
    [Portable.bigint(), 'integer(8 bytes)'],
    [Portable.decimal(38, 10), 'decimal(38,10)'],
    [Portable.decimal(), 'decimal'],
    [Portable.float(4), 'float(4 bytes)'],
    [Portable.varchar(40), 'text(40 characters)'],
    [{ kind: 'text', length: 100, unit: 'bytes', fixed: false }, 'text(100 bytes)'],
    [Portable.char(2), 'fixed text(2 characters)'],
    [Portable.binary(8, true), 'fixed binary(8 bytes)'],
    [Portable.timestamp(3, true), 'timestamp(3) with time zone'],
    [Portable.time(7), 'time(7)'],
    [Portable.json(true), 'json (parsed)'],
    [Portable.array(Portable.uuid()), 'array of uuid'],
    [Portable.native('postgres', 'inet'), 'postgres inet'],
  ])('describes %j as %s', (type, words) => {
    expect(describePortableType(type)).toBe(words);
  });

  it('tells one type from another by every parameter, not by the order its fields were written in', () => {
    expect(samePortableType({ kind: 'decimal', scale: 2, precision: 12 }, Portable.decimal(12, 2))).toBe(true);
    expect(samePortableType(Portable.decimal(12, 2), Portable.decimal(12, 3))).toBe(false);
    expect(samePortableType(Portable.varchar(10), Portable.char(10))).toBe(false);
    expect(samePortableType(Portable.array(Portable.integer()), Portable.array(Portable.bigint()))).toBe(false);
  });

  const columnOf = (portableType: unknown) => ({ name: 'c', sourceType: 'x', portableType, nullable: true });

  it.each<[string, unknown, string]>([
    ['an integer of 3 bytes', { kind: 'integer', bytes: 3 }, 'portableType.bytes: must be 2, 4 or 8'],
    ['a time with 10 fractional digits', { kind: 'time', precision: 10, zone: false }, 'portableType.precision: must be an integer from 0 to 9'],
    ['a text unit that is no unit', { kind: 'text', length: 5, unit: 'words', fixed: false }, "portableType.unit: must be one of 'characters', 'bytes'"],
    ['a native type that would be spliced into DDL', { kind: 'native', engine: 'postgres', type: 'inet; drop table x' }, 'portableType.type: must be a built-in type name'],
    ['a native type of no engine name', { kind: 'native', engine: 'Postgre SQL', type: 'inet' }, 'portableType.engine: must be an engine name'],
  ])('refuses %s, naming the field', (_name, portableType, problem) => {
    const checked = guardColumnDefinition(columnOf(portableType));
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : checked.problems.join('; ')).toContain(problem);
  });

  it('accepts every builder\'s type', () => {
    const types: PortableType[] = [
      Portable.smallint(), Portable.integer(), Portable.bigint(), Portable.decimal(5, -2), Portable.float(), Portable.text(), Portable.varchar(1), Portable.char(1),
      Portable.binary(), Portable.boolean(), Portable.date(), Portable.time(0, true), Portable.timestamp(9), Portable.interval(), Portable.uuid(), Portable.json(),
      Portable.array(Portable.native('postgres', 'bit varying(5)')), Portable.native('postgres', '"char"'),
    ];
    for (const type of types) expect(guardColumnDefinition(columnOf(type))).toMatchObject({ ok: true });
  });
});

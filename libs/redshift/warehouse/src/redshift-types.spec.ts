import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Portable, describePortableType, type PortableType } from '@svc/contracts';
import { PORTABLE_TYPE_SAMPLES } from '@svc/engines';
import { redshiftColumnType } from './redshift-types';
import { redshiftTypeRefusal } from './testing/redshift-catalog-double';

describe('redshiftColumnType: the Redshift column of each portable type', () => {
  it.each<[PortableType, string, number | null]>([
    [Portable.smallint(), 'SMALLINT', null],
    [Portable.integer(), 'INTEGER', null],
    [Portable.bigint(), 'BIGINT', null],
    [Portable.boolean(), 'BOOLEAN', null],
    [Portable.float(4), 'REAL', null],
    [Portable.float(8), 'DOUBLE PRECISION', null],
    [Portable.decimal(12, 2), 'NUMERIC(12,2)', null],
    [Portable.decimal(38, 10), 'NUMERIC(38,10)', null],
    [Portable.decimal(19, 4), 'NUMERIC(19,4)', null],
    [Portable.decimal(), 'VARCHAR(65535)', 65535],
    [Portable.decimal(50, 2), 'VARCHAR(65535)', 65535],
    [Portable.date(), 'DATE', null],
    [Portable.time(6), 'TIME', null],
    [Portable.time(7), 'TIME', null],
    [Portable.time(3, true), 'TIMETZ', null],
    [Portable.timestamp(3), 'TIMESTAMP', null],
    [Portable.timestamp(6), 'TIMESTAMP', null],
    [Portable.timestamp(7), 'TIMESTAMP', null],
    [Portable.timestamp(6, true), 'TIMESTAMPTZ', null],
    [Portable.char(5), 'VARCHAR(20)', 20],
    [Portable.char(36), 'VARCHAR(144)', 144],
    [Portable.varchar(40), 'VARCHAR(160)', 160],
    [Portable.varchar(16383), 'VARCHAR(65532)', 65532],
    [Portable.varchar(16384), 'VARCHAR(65535)', 65535],
    [{ kind: 'text', length: 100, unit: 'bytes', fixed: false }, 'VARCHAR(100)', 100],
    [{ kind: 'text', length: 8, unit: 'bytes', fixed: true }, 'VARCHAR(8)', 8],
    [{ kind: 'text', length: 65535, unit: 'bytes', fixed: false }, 'VARCHAR(65535)', 65535],
    [{ kind: 'text', length: 65536, unit: 'bytes', fixed: false }, 'VARCHAR(65535)', 65535],
    [Portable.text(), 'VARCHAR(65535)', 65535],
    [Portable.uuid(), 'CHAR(36)', 36],
    [Portable.binary(), 'VARBYTE(1024000)', 1024000],
    [Portable.binary(16, true), 'VARBYTE(1024000)', 1024000],
    [Portable.json(true), 'VARCHAR(65535)', 65535],
    [Portable.json(false), 'VARCHAR(65535)', 65535],
    [Portable.array(Portable.text()), 'VARCHAR(65535)', 65535],
    [Portable.array(Portable.integer()), 'VARCHAR(65535)', 65535],
    [Portable.interval(), 'VARCHAR(65535)', 65535],
    [Portable.native('postgres', 'inet'), 'VARCHAR(65535)', 65535],
    [Portable.native('postgres', 'xml'), 'VARCHAR(65535)', 65535],
    [Portable.native('postgres', 'money'), 'VARCHAR(65535)', 65535],
    [Portable.native('sqlserver', 'sql_variant'), 'VARCHAR(65535)', 65535],
  ])('%j → %s', (portableType, type, capacity) => {
    const mapped = redshiftColumnType(portableType);
    expect(mapped.type).toBe(type);
    expect(mapped.capacityBytes).toBe(capacity);
    expect(redshiftTypeRefusal(mapped.type)).toBeNull();
  });

  it('declares every sample portable type of the type tables as a type Redshift takes', () => {
    for (const portableType of PORTABLE_TYPE_SAMPLES) {
      const mapped = redshiftColumnType(portableType);
      expect([describePortableType(portableType), redshiftTypeRefusal(mapped.type)]).toEqual([describePortableType(portableType), null]);
    }
  });

  // AWS, Numeric types (https://docs.aws.amazon.com/redshift/latest/dg/r_Numeric_types201.html): "The maximum precision
  // is 38", "the scale value must be less than or equal to the precision value", "The maximum scale is 37". The
  // double refuses what those sentences refuse; every decimal PostgreSQL or SQL Server can declare must map to a type
  // it takes, holding every source value (a wider DECIMAL) or, failing that, the value's exact text.
  it.each<[number, number, string]>([
    [38, 38, 'VARCHAR(65535)'],
    [38, 37, 'NUMERIC(38,37)'],
    [5, 7, 'NUMERIC(7,7)'],
    [1, 37, 'NUMERIC(37,37)'],
    [2, 38, 'VARCHAR(65535)'],
    [5, -2, 'NUMERIC(7,0)'],
    [37, -1, 'NUMERIC(38,0)'],
    [38, -1, 'VARCHAR(65535)'],
    [1000, -1000, 'VARCHAR(65535)'],
  ])('decimal(%i,%i) → %s, a type Redshift takes', (precision, scale, type) => {
    const mapped = redshiftColumnType(Portable.decimal(precision, scale));
    expect(redshiftTypeRefusal(mapped.type)).toBeNull();
    expect(mapped.type).toBe(type);
  });

  it('declares no column type Redshift refuses, whatever precision and scale PostgreSQL allows', () => {
    for (let precision = 1; precision <= 40; precision += 1) {
      for (let scale = -3; scale <= 40; scale += 1) {
        const mapped = redshiftColumnType(Portable.decimal(precision, scale));
        expect([`decimal(${precision},${scale})`, redshiftTypeRefusal(mapped.type)]).toEqual([`decimal(${precision},${scale})`, null]);
      }
    }
  });

  it('names the loss of a decimal that travels as text', () => {
    expect(redshiftColumnType(Portable.decimal(38, 38)).lost).toContain('37 decimals');
    expect(redshiftColumnType(Portable.decimal(40, 2)).lost).toContain('more than 38 digits');
  });

  it('rewrites dates and times into forms COPY documents (redshift-time-text.ts), and no other values', () => {
    expect(redshiftColumnType(Portable.date()).time).toBe('date');
    expect(redshiftColumnType(Portable.time(7)).time).toBe('time');
    expect(redshiftColumnType(Portable.time(6, true)).time).toBe('timetz');
    expect(redshiftColumnType(Portable.timestamp(7)).time).toBe('timestamp');
    expect(redshiftColumnType(Portable.timestamp(7, true)).time).toBe('timestamptz');
    expect(redshiftColumnType(Portable.text()).time).toBeUndefined();
    expect(redshiftColumnType(Portable.interval()).time).toBeUndefined();
  });

  it('refuses values a DECIMAL, DATE or TIMESTAMP cannot hold, and no others', () => {
    expect(redshiftColumnType(Portable.decimal(12, 2)).finite).toBe('decimal');
    expect(redshiftColumnType(Portable.decimal()).finite).toBeUndefined();
    expect(redshiftColumnType(Portable.date()).finite).toBe('datetime');
    expect(redshiftColumnType(Portable.timestamp(3)).finite).toBe('datetime');
    expect(redshiftColumnType(Portable.timestamp(6, true)).finite).toBe('datetime');
    expect(redshiftColumnType(Portable.time(6)).finite).toBeUndefined();
    expect(redshiftColumnType(Portable.float(8)).finite).toBeUndefined();
  });

  it('loads binary from hex and everything else as text', () => {
    expect(redshiftColumnType(Portable.binary()).form).toBe('hex');
    expect(redshiftColumnType(Portable.text()).form).toBe('text');
  });

  it('says what is lost wherever something is', () => {
    const lossy: PortableType[] = [
      Portable.decimal(),
      Portable.text(),
      Portable.json(true),
      Portable.array(Portable.text()),
      Portable.timestamp(6, true),
      Portable.uuid(),
      Portable.binary(),
      Portable.varchar(20000),
      Portable.interval(),
      Portable.native('postgres', 'inet'),
    ];
    for (const portableType of lossy) expect(redshiftColumnType(portableType).lost).not.toBeNull();
    const exact: PortableType[] = [Portable.integer(), Portable.decimal(12, 2), Portable.varchar(40), Portable.date(), Portable.boolean(), Portable.time(6), Portable.timestamp(3)];
    for (const portableType of exact) expect(redshiftColumnType(portableType).lost).toBeNull();
  });

  it('says that fractional seconds past the 6th digit are rounded, Redshift keeping microseconds', () => {
    for (const portableType of [Portable.time(7), Portable.time(9, true), Portable.timestamp(7), Portable.timestamp(9, true)]) {
      expect(redshiftColumnType(portableType).lost).toContain('past the 6th digit are rounded');
    }
    expect(redshiftColumnType(Portable.timestamp(9, true)).lost).toContain('the original offset is not kept');
  });

  it('names what travels as text: an interval as its ISO 8601 duration, a native type with its engine', () => {
    expect(redshiftColumnType(Portable.interval()).lost).toContain('ISO 8601 duration');
    expect(redshiftColumnType(Portable.native('postgres', 'inet')).lost).toContain('postgres inet: its postgres text form');
    expect(redshiftColumnType(Portable.native('sqlserver', 'sql_variant')).lost).toContain('sqlserver sql_variant: its sqlserver text form');
  });

  it('names the character bound past which a varchar is the widest VARCHAR', () => {
    expect(redshiftColumnType(Portable.varchar(20000)).lost).toContain('varchar(n) longer than 16383 characters');
    expect(redshiftColumnType(Portable.char(20000)).lost).toContain('char(n) longer than 16383 characters');
    expect(redshiftColumnType({ kind: 'text', length: 70000, unit: 'bytes', fixed: false }).lost).toContain('longer than 65535 bytes');
  });
});

// The table itself is docs/TYPES.md, generated from redshiftColumnType (libs/engine-list/src/types-document.spec.ts).
describe('docs/REDSHIFT.md types', () => {
  it('names the losses a reader of the warehouse must know: empty binary as NULL, refused infinities and NaN', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'REDSHIFT.md'), 'utf8');
    const types = doc.slice(doc.indexOf('## Types'));
    expect(types).toContain('An empty binary value (zero bytes) arrives as NULL');
    expect(types).toContain('`infinity`, `-infinity`, BC dates and dates after 294276 AD');
    expect(types).toContain('`NaN` and\n  `±Infinity` in decimals');
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { redshiftColumnType } from './redshift-types';
import { redshiftTypeRefusal } from './testing/redshift-catalog-double';

describe('redshiftColumnType: the Redshift column of each portable type', () => {
  it.each<[string, string, number | null]>([
    ['smallint', 'SMALLINT', null],
    ['integer', 'INTEGER', null],
    ['bigint', 'BIGINT', null],
    ['boolean', 'BOOLEAN', null],
    ['real', 'REAL', null],
    ['double precision', 'DOUBLE PRECISION', null],
    ['numeric(12,2)', 'NUMERIC(12,2)', null],
    ['numeric(38,10)', 'NUMERIC(38,10)', null],
    ['numeric(19,4)', 'NUMERIC(19,4)', null],
    ['numeric', 'VARCHAR(65535)', 65535],
    ['numeric(50,2)', 'VARCHAR(65535)', 65535],
    ['date', 'DATE', null],
    ['time(6)', 'TIME', null],
    ['time without time zone', 'TIME', null],
    ['time(3) with time zone', 'TIMETZ', null],
    ['timestamp(3)', 'TIMESTAMP', null],
    ['timestamp(6) without time zone', 'TIMESTAMP', null],
    ['timestamp with time zone', 'TIMESTAMPTZ', null],
    ['timestamptz(6)', 'TIMESTAMPTZ', null],
    ['character(5)', 'VARCHAR(20)', 20],
    ['char(36)', 'VARCHAR(144)', 144],
    ['character varying(40)', 'VARCHAR(160)', 160],
    ['varchar(16383)', 'VARCHAR(65532)', 65532],
    ['varchar(16384)', 'VARCHAR(65535)', 65535],
    ['character varying', 'VARCHAR(65535)', 65535],
    ['text', 'VARCHAR(65535)', 65535],
    ['uuid', 'CHAR(36)', 36],
    ['bytea', 'VARBYTE(1024000)', 1024000],
    ['jsonb', 'VARCHAR(65535)', 65535],
    ['json', 'VARCHAR(65535)', 65535],
    ['text[]', 'VARCHAR(65535)', 65535],
    ['integer[]', 'VARCHAR(65535)', 65535],
    ['interval', 'VARCHAR(65535)', 65535],
    ['inet', 'VARCHAR(65535)', 65535],
    ['xml', 'VARCHAR(65535)', 65535],
    ['money', 'VARCHAR(65535)', 65535],
  ])('%s → %s', (portableType, type, capacity) => {
    const mapped = redshiftColumnType({ portableType });
    expect(mapped.type).toBe(type);
    expect(mapped.capacityBytes).toBe(capacity);
    expect(redshiftTypeRefusal(mapped.type)).toBeNull();
  });

  // AWS, Numeric types (https://docs.aws.amazon.com/redshift/latest/dg/r_Numeric_types201.html): "The maximum precision
  // is 38", "the scale value must be less than or equal to the precision value", "The maximum scale is 37". The
  // double refuses what those sentences refuse; every numeric PostgreSQL or SQL Server can declare must map to a type
  // it takes, holding every source value (a wider DECIMAL) or, failing that, the value's exact text.
  it.each<[string, string]>([
    ['numeric(38,38)', 'VARCHAR(65535)'],
    ['decimal(38,38)', 'VARCHAR(65535)'],
    ['numeric(38,37)', 'NUMERIC(38,37)'],
    ['numeric(5,7)', 'NUMERIC(7,7)'],
    ['numeric(1,37)', 'NUMERIC(37,37)'],
    ['numeric(2,38)', 'VARCHAR(65535)'],
    ['numeric(5,-2)', 'NUMERIC(7,0)'],
    ['numeric(37,-1)', 'NUMERIC(38,0)'],
    ['numeric(38,-1)', 'VARCHAR(65535)'],
    ['numeric(1000,-1000)', 'VARCHAR(65535)'],
  ])('%s → %s, a type Redshift takes', (portableType, type) => {
    const mapped = redshiftColumnType({ portableType });
    expect(redshiftTypeRefusal(mapped.type)).toBeNull();
    expect(mapped.type).toBe(type);
  });

  it('declares no column type Redshift refuses, whatever precision and scale PostgreSQL allows', () => {
    for (let precision = 1; precision <= 40; precision += 1) {
      for (let scale = -3; scale <= 40; scale += 1) {
        const mapped = redshiftColumnType({ portableType: `numeric(${precision},${scale})` });
        expect([`numeric(${precision},${scale})`, redshiftTypeRefusal(mapped.type)]).toEqual([`numeric(${precision},${scale})`, null]);
      }
    }
  });

  it('names the loss of a numeric that travels as text', () => {
    expect(redshiftColumnType({ portableType: 'numeric(38,38)' }).lost).toContain('37 decimals');
  });

  it('loads binary from hex and everything else as text', () => {
    expect(redshiftColumnType({ portableType: 'bytea' }).form).toBe('hex');
    expect(redshiftColumnType({ portableType: 'text' }).form).toBe('text');
  });

  it('says what is lost wherever something is', () => {
    for (const portableType of ['numeric', 'text', 'jsonb', 'text[]', 'timestamptz(6)', 'uuid', 'bytea', 'varchar(20000)']) {
      expect(redshiftColumnType({ portableType }).lost).not.toBeNull();
    }
    for (const portableType of ['integer', 'numeric(12,2)', 'varchar(40)', 'date', 'boolean']) {
      expect(redshiftColumnType({ portableType }).lost).toBeNull();
    }
  });
});

describe('docs/REDSHIFT.md type table', () => {
  it('lists every Redshift type the mapping declares', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'REDSHIFT.md'), 'utf8');
    const heading = doc.indexOf('## Types');
    expect(heading).toBeGreaterThan(0);
    const table = doc.slice(heading);
    for (const type of ['SMALLINT', 'INTEGER', 'BIGINT', 'BOOLEAN', 'REAL', 'DOUBLE PRECISION', 'NUMERIC(p,s)', 'DATE', 'TIME', 'TIMETZ', 'TIMESTAMP', 'TIMESTAMPTZ', 'VARCHAR(65535)', 'CHAR(36)', 'VARBYTE(1024000)']) {
      expect(table).toContain(`\`${type}\``);
    }
  });

  it('names the losses a reader of the warehouse must know: empty binary as NULL, refused infinities and NaN', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'REDSHIFT.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Types'));
    expect(table).toContain('an empty binary value (zero bytes) arrives as NULL');
    expect(table).toContain('holding `infinity`, `-infinity`, a BC date or a date after 294276 AD');
    expect(table).toContain('holding `NaN`, `Infinity`, `-Infinity`');
  });
});

import { ColumnTypeChangeError, columnChangeNotes, columnTypeRelation, planColumnTypes, suspectedRenames } from './column-type-change';

describe('columnTypeRelation (the widening lattice)', () => {
  it.each([
    ['integer', 'int4'],
    ['character varying(50)', 'varchar(50)'],
    ['timestamp(3) with time zone', 'timestamptz(3)'],
    ['timestamp without time zone', 'timestamp(6)'],
    ['numeric(10,2)', 'decimal(10, 2)'],
    ['text', 'TEXT'],
  ])('%s and %s are one type', (existing, wanted) => {
    expect(columnTypeRelation(existing, wanted)).toBe('same');
  });

  it.each([
    ['smallint', 'integer'],
    ['integer', 'bigint'],
    ['character varying(50)', 'character varying(100)'],
    ['character varying(50)', 'text'],
    ['character(3)', 'character(10)'],
    ['numeric(10,2)', 'numeric(12,2)'],
    ['numeric(10,2)', 'numeric(12,4)'],
    ['numeric(10,2)', 'numeric'],
    ['integer', 'numeric(10,0)'],
    ['real', 'double precision'],
    ['timestamp(3) without time zone', 'timestamp(6) without time zone'],
  ])('%s → %s is a lossless widening, and back a narrowing', (existing, wanted) => {
    expect(columnTypeRelation(existing, wanted)).toBe('widened');
    expect(columnTypeRelation(wanted, existing)).toBe('narrowed');
  });

  it.each([
    ['integer', 'text'],
    ['bigint', 'double precision'],
    ['integer', 'numeric(9,0)'],
    ['numeric(10,2)', 'numeric(12,1)'],
    ['numeric(10,4)', 'numeric(11,2)'],
    ['character(10)', 'character varying(20)'],
    ['timestamp without time zone', 'timestamp with time zone'],
    ['integer[]', 'bigint[]'],
    ['uuid', 'text'],
  ])('%s and %s are incompatible (neither holds the other)', (existing, wanted) => {
    expect(columnTypeRelation(existing, wanted)).toBe('incompatible');
  });

  it('reads SQL Server spellings: varchar holds a code page, nvarchar any character, max is unbounded, tinyint is unsigned', () => {
    expect(columnTypeRelation('varchar(50)', 'nvarchar(50)', 'sqlserver')).toBe('widened');
    expect(columnTypeRelation('nvarchar(50)', 'varchar(100)', 'sqlserver')).toBe('incompatible');
    expect(columnTypeRelation('nvarchar(4000)', 'nvarchar(max)', 'sqlserver')).toBe('widened');
    expect(columnTypeRelation('tinyint', 'smallint', 'sqlserver')).toBe('widened');
    expect(columnTypeRelation('int', 'bigint', 'sqlserver')).toBe('widened');
    expect(columnTypeRelation('decimal(18,0)', 'decimal', 'sqlserver')).toBe('same');
    expect(columnTypeRelation('datetime2(3)', 'datetime2', 'sqlserver')).toBe('widened');
    expect(columnTypeRelation('varbinary(16)', 'varbinary(max)', 'sqlserver')).toBe('widened');
    expect(columnTypeRelation('datetime', 'datetime2(3)', 'sqlserver')).toBe('incompatible');
  });

  it.each([
    ['int(11)', 'int'],
    ['bigint(20)', 'bigint'],
    ['int(10) unsigned', 'int unsigned'],
    ['tinyint(1)', 'boolean'],
    ['decimal(10,2)', 'decimal(10, 2)'],
    ['decimal', 'decimal(10,0)'],
    ['datetime', 'datetime(0)'],
    ['varchar(20)', 'VARCHAR(20)'],
    ['longtext', 'LONGTEXT'],
    ['double', 'real'],
  ])('reads MySQL spellings: %s and %s are one type', (existing, wanted) => {
    expect(columnTypeRelation(existing, wanted, 'mysql')).toBe('same');
  });

  it.each([
    ['smallint', 'int'],
    ['int(11)', 'bigint(20)'],
    ['int(10) unsigned', 'bigint'],
    ['bigint(20)', 'decimal(20,0)'],
    ['bigint(20) unsigned', 'decimal(20,0)'],
    ['mediumint(8) unsigned', 'int(11)'],
    ['decimal(10,2)', 'decimal(12,4)'],
    ['float', 'double'],
    ['varchar(20)', 'varchar(40)'],
    ['varchar(20)', 'longtext'],
    ['text', 'mediumtext'],
    ['char(3)', 'char(10)'],
    ['datetime', 'datetime(6)'],
    ['datetime(3)', 'datetime(6)'],
    ['timestamp(3)', 'timestamp(6)'],
    ['time', 'time(6)'],
    ['varbinary(16)', 'varbinary(32)'],
    ['varbinary(16)', 'longblob'],
    ['blob', 'longblob'],
  ])('reads MySQL spellings: %s → %s is a lossless widening, and back a narrowing', (existing, wanted) => {
    expect(columnTypeRelation(existing, wanted, 'mysql')).toBe('widened');
    expect(columnTypeRelation(wanted, existing, 'mysql')).toBe('narrowed');
  });

  it.each([
    // A tinyint(1) is MySQL's BOOLEAN, not a small integer.
    ['tinyint(1)', 'smallint'],
    // A signed bigint's negative values do not fit unsigned, nor its range past 2^63 signed.
    ['bigint(20)', 'bigint(20) unsigned'],
    ['bigint(20) unsigned', 'decimal(19,0)'],
    // datetime holds wall-clock readings, timestamp instants.
    ['datetime(6)', 'timestamp(6)'],
    ['char(10)', 'varchar(20)'],
    ['varchar(20)', 'varbinary(80)'],
    ['json', 'longtext'],
    ['uuid', 'char(36)'],
  ])('reads MySQL spellings: %s and %s are incompatible', (existing, wanted) => {
    expect(columnTypeRelation(existing, wanted, 'mysql')).toBe('incompatible');
  });
});

describe('planColumnTypes', () => {
  it('sorts the columns both sides have into widen, kept wider and incompatible; others are left to the added-column path', () => {
    const plan = planColumnTypes(
      [
        { name: 'id', type: 'integer' },
        { name: 'n', type: 'integer' },
        { name: 'label', type: 'character varying(100)' },
        { name: 'code', type: 'integer' },
        { name: 'stale', type: 'text' },
      ],
      [
        { name: 'id', type: 'integer' },
        { name: 'n', type: 'bigint' },
        { name: 'label', type: 'character varying(50)' },
        { name: 'code', type: 'text' },
        { name: 'added', type: 'text' },
      ],
    );
    expect(plan).toEqual({
      widen: [{ name: 'n', from: 'integer', to: 'bigint' }],
      keptWider: [{ name: 'label', from: 'character varying(100)', to: 'character varying(50)' }],
      incompatible: [{ name: 'code', from: 'integer', to: 'text' }],
    });
  });
});

describe('suspectedRenames', () => {
  it('pairs the one column gone with the one come of the same type', () => {
    expect(suspectedRenames([{ name: 'id', type: 'integer' }, { name: 'old', type: 'text' }], [{ name: 'id', type: 'integer' }, { name: 'new', type: 'text' }])).toEqual([
      { from: 'old', to: 'new' },
    ]);
  });

  it('pairs several by position and type only', () => {
    const existing = [
      { name: 'id', type: 'integer' },
      { name: 'a', type: 'text' },
      { name: 'b', type: 'integer' },
    ];
    const wanted = [
      { name: 'id', type: 'integer' },
      { name: 'a2', type: 'text' },
      { name: 'b2', type: 'bigint' },
    ];
    expect(suspectedRenames(existing, wanted)).toEqual([{ from: 'a', to: 'a2' }]);
  });

  it('suspects nothing when a column of another type came', () => {
    expect(suspectedRenames([{ name: 'old', type: 'text' }], [{ name: 'new', type: 'integer' }])).toEqual([]);
  });
});

describe('words', () => {
  it('names table, column, old and new type in the failure', () => {
    const error = new ColumnTypeChangeError({ schema: 'public', name: 'c' }, 'the warehouse table', [{ name: 'n', from: 'integer', to: 'text' }]);
    expect(error.message).toContain('[public].[c]: the type of column(s) n from integer to text changed in the source and the warehouse table cannot follow');
    expect(error.kind).toBe('statement-failed');
    expect(error.serviceWorded).toBe(true);
  });

  it('words widenings and suspected renames for the alert', () => {
    expect(columnChangeNotes('staging', [{ name: 'n', from: 'integer', to: 'bigint' }], [{ from: 'a', to: 'b' }])).toEqual([
      'widened column n from integer to bigint in staging',
      expect.stringContaining('column a is gone from the source and b appeared in its place with the same type: a rename?'),
    ]);
  });
});

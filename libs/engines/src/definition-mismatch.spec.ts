import { columnMismatch, columnTypeMismatch } from './definition-mismatch';

describe('columnMismatch', () => {
  it('accepts a definition naming exactly the columns', () => {
    expect(columnMismatch(['id', 'name'], ['id', 'name'], false)).toBeNull();
  });

  it('names columns that are gone, also for a projected definition', () => {
    expect(columnMismatch(['id', 'name'], ['id'], false)).toBe('column(s) name no longer exist');
    expect(columnMismatch(['id', 'name'], ['id'], true)).toBe('column(s) name no longer exist');
  });

  it('names added columns unless the definition is a projection', () => {
    expect(columnMismatch(['id'], ['id', 'x', 'y'], false)).toBe('column(s) x, y were added');
    expect(columnMismatch(['id'], ['id', 'x'], true)).toBeNull();
  });
});

describe('columnTypeMismatch', () => {
  it('accepts the same types and leaves columns only one side has to columnMismatch', () => {
    expect(columnTypeMismatch([{ name: 'id', type: 'integer' }, { name: 'gone', type: 'text' }], [{ name: 'id', type: 'integer' }, { name: 'added', type: 'text' }])).toBeNull();
  });

  it('names each column whose type changed, old and new', () => {
    expect(columnTypeMismatch([{ name: 'id', type: 'integer' }, { name: 'n', type: 'integer' }], [{ name: 'id', type: 'integer' }, { name: 'n', type: 'bigint' }])).toBe(
      'column(s) n (integer → bigint) changed type',
    );
  });
});

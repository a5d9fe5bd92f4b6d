import { columnMismatch } from './definition-mismatch';

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

import type { TableDefinition } from '@svc/contracts';
import { boundsOf, keyRangeCondition } from './seed-chunks';

const definition = (primaryKey: string[]): TableDefinition =>
  ({ table: { schema: 'public', name: 'orders' }, columns: primaryKey.map((name) => ({ name })), primaryKey }) as unknown as TableDefinition;

describe('chunked seeds: bounds from a sample of the key', () => {
  it('takes chunks - 1 bounds evenly from the sorted sample', () => {
    const sample = Array.from({ length: 100 }, (_, index) => [String(index)]);
    expect(boundsOf(sample, 4)).toEqual([['25'], ['50'], ['75']]);
  });

  it('gives a repeated key one bound, and none from an empty sample (one chunk)', () => {
    expect(boundsOf([['1'], ['1'], ['1'], ['2']], 4)).toEqual([['1'], ['2']]);
    expect(boundsOf([], 8)).toEqual([]);
  });
});

describe('chunked seeds: the condition of a chunk', () => {
  it('compares one key column as itself and several as a row, bounds as escaped literals', () => {
    expect(keyRangeCondition(definition(['id']), { lower: ['10'], upper: ["it's"] })).toBe(`"id" >= E'10' and "id" < E'it''s'`);
    expect(keyRangeCondition(definition(['a', 'b']), { lower: null, upper: ['1', 'x\\y'] })).toBe(`("a", "b") < (E'1', E'x\\\\y')`);
  });

  it('reads the whole table without bounds, and refuses a bound of another key width', () => {
    expect(keyRangeCondition(definition(['id']), { lower: null, upper: null })).toBeNull();
    expect(() => keyRangeCondition(definition(['a', 'b']), { lower: ['1'], upper: null })).toThrow('a chunk bound has 1 value(s) for a key of 2 column(s)');
  });
});

import type { TableDefinition } from '@svc/contracts';
import { keyRangeCondition } from './seed-chunks';

const definition = (primaryKey: string[]): TableDefinition =>
  ({ table: { schema: 'public', name: 'orders' }, columns: primaryKey.map((name) => ({ name })), primaryKey }) as unknown as TableDefinition;

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

import type { TableDefinition } from '@svc/contracts';
import { bucketStartsSql, keyCutsIntoRanges, keyRangeFilter } from './seed-chunks';

const definition = (columns: [string, string][], primaryKey: string[]): TableDefinition =>
  ({ table: { schema: 'dbo', name: 'orders' }, columns: columns.map(([name, sourceType]) => ({ name, sourceType })), primaryKey }) as unknown as TableDefinition;

const lines = definition([['code', 'varchar(20)'], ['line', 'int'], ['note', 'nvarchar(max)']], ['code', 'line']);

describe('SQL Server chunked seeds: the condition of a chunk', () => {
  it('compares one key column as itself, its bound converted to the column type', () => {
    expect(keyRangeFilter(definition([['id', 'bigint']], ['id']), { lower: ['10'], upper: ['20'] })).toEqual({
      condition: 't.[id] >= CONVERT(bigint, @lower0)\n  AND t.[id] < CONVERT(bigint, @upper0)',
      parameters: [['lower0', '10'], ['upper0', '20']],
    });
  });

  it('compares several key columns in key order, led by a seek on the first, a text bound in the column\'s own type', () => {
    // "When an operator combines expressions of different data types, the data type with the lower precedence is first
    // converted to the data type with the higher precedence" (Data type precedence, Transact-SQL): an nvarchar bound
    // would convert a varchar column, row by row, so the bound converts to the column's type instead.
    const filter = keyRangeFilter(lines, { lower: ['order-1', '2'], upper: null });
    expect(filter?.condition).toBe(
      't.[code] >= CONVERT(varchar(20), @lower0) AND (t.[code] > CONVERT(varchar(20), @lower0) OR (t.[code] = CONVERT(varchar(20), @lower0) AND t.[line] >= CONVERT(int, @lower1)))',
    );
    expect(keyRangeFilter(lines, { lower: null, upper: ['order-9', '0'] })?.condition).toBe(
      't.[code] <= CONVERT(varchar(20), @upper0) AND (t.[code] < CONVERT(varchar(20), @upper0) OR (t.[code] = CONVERT(varchar(20), @upper0) AND t.[line] < CONVERT(int, @upper1)))',
    );
  });

  it('reads the whole table without bounds, and refuses a bound of another key width', () => {
    expect(keyRangeFilter(lines, { lower: null, upper: null })).toBeNull();
    expect(() => keyRangeFilter(lines, { lower: ['x'], upper: null })).toThrow('a chunk bound has 1 value(s) for a key of 2 column(s)');
  });

  it('converts a date, a uniqueidentifier and a binary bound back with the conversion staging uses for its text', () => {
    const keyed = definition([['day', 'date'], ['id', 'uniqueidentifier'], ['tag', 'varbinary(16)']], ['day', 'id', 'tag']);
    const condition = keyRangeFilter(keyed, { lower: ['2024-01-31', '6f9619ff-8b86-d011-b42d-00c04fc964ff', '\\x0a0b'], upper: null })?.condition ?? '';
    expect(condition).toContain('CONVERT(date, @lower0, 23)');
    expect(condition).toContain('CONVERT(uniqueidentifier, @lower1)');
    expect(condition).toContain('CONVERT(varbinary(16), SUBSTRING(@lower2, 3, LEN(@lower2)), 2)');
  });
});

describe('SQL Server chunked seeds: which keys are cut and how they are sampled', () => {
  it('cuts keys whose text converts back exactly, and leaves float, sql_variant and bit keys to one snapshot', () => {
    expect(keyCutsIntoRanges(lines)).toBe(true);
    expect(keyCutsIntoRanges(definition([['at', 'datetime2(7)'], ['n', 'decimal(18,2)']], ['at', 'n']))).toBe(true);
    expect(keyCutsIntoRanges(definition([['value', 'float']], ['value']))).toBe(false);
    expect(keyCutsIntoRanges(definition([['id', 'int'], ['v', 'sql_variant']], ['id', 'v']))).toBe(false);
    expect(keyCutsIntoRanges(definition([['flag', 'bit']], ['flag']))).toBe(false);
    expect(keyCutsIntoRanges(definition([['id', 'int']], []))).toBe(false);
  });

  it('samples pages, buckets the sampled keys on the server and returns each bucket\'s first key after the first, as the read renders it', () => {
    const sql = bucketStartsSql(lines, 12.5, 4);
    expect(sql).toContain('FROM [dbo].[orders] AS t TABLESAMPLE SYSTEM (12.500000 PERCENT)');
    expect(sql).toContain('NTILE(4) OVER (ORDER BY t.[code], t.[line])');
    expect(sql).toContain('CONVERT(varchar(11), sampled.[line]) AS k1');
    expect(sql).toContain('WHERE s.nth = 1 AND s.bucket > 1');
  });
});

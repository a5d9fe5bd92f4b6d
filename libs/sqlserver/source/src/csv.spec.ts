import { csvField, csvLine } from './csv';

describe('CSV as the pipeline carries it (the row interchange format, docs/ROW-FORMAT.md)', () => {
  it.each<[string | number | null, string]>([
    [null, ''],
    ['', '""'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['\\.', '"\\."'],
    ['\\x0aff', '\\x0aff'],
    ['😀 𝄞 4-byte', '😀 𝄞 4-byte'],
    [' padded ', ' padded '],
    [0.1, '0.1'],
    [1e21, '1e+21'],
    [-0, '-0'],
    [12345678.875, '12345678.875'],
  ])('%p → %p', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });

  it('joins a row with commas and ends it with a newline', () => {
    expect(csvLine(['1', null, '', 'x,y'])).toBe('1,,"","x,y"\n');
  });

  it('refuses what SQL Server cannot hold', () => {
    expect(() => csvField(Number.NaN)).toThrow(RangeError);
  });
});

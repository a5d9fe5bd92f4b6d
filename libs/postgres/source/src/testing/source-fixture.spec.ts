import { parseCsv } from './source-fixture';

describe('parseCsv (test helper)', () => {
  it('tells NULL from the empty string and unquotes', () => {
    expect(parseCsv('1,,""\n"a,b","say ""hi""","line\nbreak"\n2,\n')).toEqual([
      ['1', null, ''],
      ['a,b', 'say "hi"', 'line\nbreak'],
      ['2', null],
    ]);
  });
});

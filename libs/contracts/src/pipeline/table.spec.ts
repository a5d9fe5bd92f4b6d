import { parseTableKey, readTableRef, tableKey } from './table';

describe('table keys: one grammar for the API lists and the pipeline', () => {
  it.each([
    [{ schema: 'public', name: 'orders' }, '[public].[orders]'],
    [{ schema: 'public', name: 'a]b' }, '[public].[a]]b]'],
    [{ schema: 'we]ird', name: ']]' }, '[we]]ird].[]]]]]'],
    [{ schema: 'dbo', name: 'a.b, [c]' }, '[dbo].[a.b, [c]]]'],
  ])('%j is written %s and reads back', (table, key) => {
    expect(tableKey(table)).toBe(key);
    expect(parseTableKey(key)).toEqual(table);
  });

  it.each(['[public].[a]b]', 'public.orders', '[public]', '[public].[]', '[public].[x] extra', '[a].[b'])('refuses %s', (text) => {
    expect(parseTableKey(text)).toBeNull();
  });

  it('reads one name inside a longer text and says where it ends', () => {
    expect(readTableRef('[a].[b]], c], [d].[e]', 0)).toEqual({ ok: true, table: { schema: 'a', name: 'b], c' }, end: 12 });
  });
});

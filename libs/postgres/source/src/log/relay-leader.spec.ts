import type { TableRecords } from './change-records';
import { recordsCsv } from './relay-leader';

describe('the relay’s records as COPY CSV', () => {
  it('quotes every key value, so commas, quotes, line breaks and empty strings arrive as they were', () => {
    const records: TableRecords = {
      table: { schema: 'public', name: 't', changeTable: 'public.t', keys: [{ name: 'a', type: 'text' }, { name: 'b', type: 'integer' }] },
      keyValues: [
        ['plain', 'with, comma', 'say "hi"', 'two\nlines', ''],
        ['1', '2', '3', '4', '5'],
      ],
      ops: ['I', 'U', 'D', 'I', 'U'],
      xids: ['10', '10', '11', '12', '12'],
    };
    expect(recordsCsv(records).toString('utf8')).toBe(
      ['"plain","1",I,10', '"with, comma","2",U,10', '"say ""hi""","3",D,11', '"two\nlines","4",I,12', '"","5",U,12', ''].join('\n'),
    );
  });
});

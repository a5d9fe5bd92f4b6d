import { ChangeRecordBuilder, fullTransactionId, type LogTable } from './change-records';
import { decodePgOutput } from './pgoutput';

/*
 * pgoutput's messages, protocol version 1, as PostgreSQL's "Logical Replication Message Formats" lays them out
 * (Begin, Relation, Insert, Update with an old key, Delete, Truncate, Commit), encoded here byte by byte.
 */
const int16 = (value: number) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};
const int64 = (value: bigint) => {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(value);
  return buffer;
};
const text = (value: string) => Buffer.concat([Buffer.from(value, 'utf8'), Buffer.from([0])]);
const tag = (value: string) => Buffer.from(value, 'ascii');
/** A value as text, SQL NULL, or UNCHANGED (a TOASTed value the change left alone). */
const UNCHANGED = Symbol('unchanged');
type Value = string | null | typeof UNCHANGED;
const tuple = (values: Value[]) =>
  Buffer.concat([
    int16(values.length),
    ...values.map((value) => {
      if (value === null) return tag('n');
      if (value === UNCHANGED) return tag('u');
      const bytes = Buffer.from(value, 'utf8');
      return Buffer.concat([tag('t'), int32(bytes.length), bytes]);
    }),
  ]);

const begin = (xid: number) => Buffer.concat([tag('B'), int64(100n), int64(0n), int32(xid)]);
const commit = (end: bigint) => Buffer.concat([tag('C'), Buffer.from([0]), int64(end - 8n), int64(end), int64(0n)]);
const relation = (relid: number, columns: { name: string; key: boolean }[]) =>
  Buffer.concat([
    tag('R'),
    int32(relid),
    text('public'),
    text('orders'),
    tag('d'),
    int16(columns.length),
    ...columns.map((column) => Buffer.concat([Buffer.from([column.key ? 1 : 0]), text(column.name), int32(23), int32(0xffffffff)])),
  ]);
const insert = (relid: number, values: Value[]) => Buffer.concat([tag('I'), int32(relid), tag('N'), tuple(values)]);
const update = (relid: number, values: Value[], oldKey?: Value[]) =>
  Buffer.concat([tag('U'), int32(relid), ...(oldKey ? [tag('K'), tuple(oldKey)] : []), tag('N'), tuple(values)]);
const remove = (relid: number, oldKey: Value[]) => Buffer.concat([tag('D'), int32(relid), tag('K'), tuple(oldKey)]);
const truncate = (relids: number[]) => Buffer.concat([tag('T'), int32(relids.length), Buffer.from([0]), ...relids.map(int32)]);

const ORDERS: LogTable = { schema: 'public', name: 'orders', changeTable: 'public.orders', keys: [{ name: 'id', type: 'integer' }] };
const COLUMNS = [
  { name: 'id', key: true },
  { name: 'note', key: false },
];

function build(messages: Buffer[], tables = new Map([[16384, ORDERS]])) {
  const builder = new ChangeRecordBuilder(tables, (xid) => fullTransactionId(xid, 1000n));
  // As the relay decodes: only the columns the builder reads.
  for (const message of messages) builder.add(decodePgOutput(message, (relid) => builder.wantedColumns(relid)));
  return builder.take();
}

describe('change records from pgoutput messages', () => {
  it('records an insert as I, an update as U, a key change as D of the old key and I of the new, a delete as D, with the full xid', () => {
    const built = build([
      begin(990),
      relation(16384, COLUMNS),
      insert(16384, ['1', 'a']),
      update(16384, ['1', UNCHANGED]),
      update(16384, ['2', 'b'], ['1', null]),
      remove(16384, ['2', null]),
      commit(0x2000n),
    ]);
    expect(built.failures).toEqual([]);
    expect(built.records).toEqual([{ table: ORDERS, keyValues: [['1', '1', '1', '2', '2']], ops: ['I', 'U', 'D', 'I', 'D'], xids: ['990', '990', '990', '990', '990'] }]);
  });

  it('ignores tables it does not capture, and reads a commit’s end LSN', () => {
    expect(build([begin(5), relation(99, COLUMNS), insert(99, ['1', 'a'])])).toEqual({ records: [], failures: [] });
    expect(decodePgOutput(commit(0x1_0000_0010n))).toEqual({ type: 'commit', commitLsn: 0x1_0000_0008n, endLsn: 0x1_0000_0010n });
  });

  it('fails a table whose key column the log no longer carries, or that was truncated, at the latest such transaction, keeping the records around it', () => {
    const renamed = build([begin(1001), relation(16384, [{ name: 'code', key: true }, COLUMNS[1]]), insert(16384, ['3', 'c'])]);
    expect(renamed.failures).toEqual([{ table: ORDERS, xid: '1001', reason: 'key column id is no longer in the table as the log has it (renamed or dropped)' }]);
    const truncated = build([begin(1002), relation(16384, COLUMNS), insert(16384, ['1', 'a']), commit(10n), begin(1003), truncate([16384]), commit(20n), begin(1004), insert(16384, ['2', 'b'])]);
    expect(truncated.failures).toEqual([{ table: ORDERS, xid: '1003', reason: 'the table was truncated (read from the log)' }]);
    expect(truncated.records[0]?.ops).toEqual(['I', 'I']);
  });

  it('decodes only the key columns of a captured table, none of one it does not capture, and follows a relation sent again with its columns moved', () => {
    const builder = new ChangeRecordBuilder(new Map([[16384, ORDERS]]), (xid) => fullTransactionId(xid, 1000n));
    const decode = (message: Buffer) => decodePgOutput(message, (relid) => builder.wantedColumns(relid));
    builder.add(decode(relation(16384, COLUMNS)));
    expect(decode(insert(16384, ['1', 'a note']))).toEqual({ type: 'insert', relid: 16384, newTuple: [{ kind: 'text', text: '1' }, { kind: 'skipped' }] });
    expect(decode(insert(99, ['1', null]))).toEqual({ type: 'insert', relid: 99, newTuple: [{ kind: 'skipped' }, { kind: 'null' }] });
    expect(decodePgOutput(insert(16384, ['1', 'a note']))).toEqual({ type: 'insert', relid: 16384, newTuple: [{ kind: 'text', text: '1' }, { kind: 'text', text: 'a note' }] });
    const moved = build([begin(7), relation(16384, COLUMNS), insert(16384, ['1', 'a']), relation(16384, [COLUMNS[1], COLUMNS[0]]), insert(16384, ['b', '2'])]);
    expect(moved).toEqual({ records: [{ table: ORDERS, keyValues: [['1', '2']], ops: ['I', 'I'], xids: ['7', '7'] }], failures: [] });
  });

  it('widens a 32-bit xid to the full id nearest the relay horizon, across an epoch boundary', () => {
    expect(fullTransactionId(5, 0x1_0000_0003n)).toBe(0x1_0000_0005n);
    expect(fullTransactionId(0xffff_fff0, 0x1_0000_0003n)).toBe(0x0_ffff_fff0n);
    expect(fullTransactionId(7, 0x0_ffff_fff0n)).toBe(0x1_0000_0007n);
  });

  it('refuses a truncated message instead of reading past its end', () => {
    expect(() => decodePgOutput(insert(16384, ['1', 'a']).subarray(0, 12))).toThrow('pgoutput message: truncated');
  });
});

import type { BinlogPosition } from './binlog-position';
import type { TableRead, TableReadResult } from './change-scan';
import { SharedLogReader } from './shared-reader';

const at = (position: number): BinlogPosition => ({ file: 'binlog.000001', position });
const readOf = (name: string, from: number): TableRead => ({ target: { schema: 'shop', name, keyColumns: [] }, from: at(from), limit: 10 });
const resultFor = (read: TableRead, until: BinlogPosition): TableReadResult => ({
  keys: new Map([[JSON.stringify([read.target.name]), { key: [read.target.name], first: 'insert' }]]),
  records: 1,
  lastChange: until,
  columnsAdded: false,
  rewritten: null,
  end: until,
  limited: false,
});

describe('SharedLogReader', () => {
  it('gathers the reads that arrive together into one scan to the furthest log end any of them saw, each answered with its own table', async () => {
    const scans: { until: BinlogPosition; reads: readonly TableRead[] }[] = [];
    const reader = new SharedLogReader(async (until, reads) => {
      scans.push({ until, reads });
      return reads.map((read) => resultFor(read, until));
    });
    const [orders, lines] = await Promise.all([reader.read(readOf('orders', 100), at(900)), reader.read(readOf('lines', 40), at(1200))]);
    expect(scans).toHaveLength(1);
    expect(scans[0]?.until).toEqual(at(1200));
    expect(scans[0]?.reads.map((read) => read.target.name)).toEqual(['orders', 'lines']);
    expect([...(orders.keys.keys())]).toEqual(['["orders"]']);
    expect([...(lines.keys.keys())]).toEqual(['["lines"]']);
  });

  it('starts a new scan for reads that arrive while one runs, and fails every read of a scan that failed', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const reader = new SharedLogReader(async (until, reads) => {
      calls += 1;
      if (calls === 1) {
        await held;
        throw new Error('the dump failed');
      }
      return reads.map((read) => resultFor(read, until));
    });
    const first = reader.read(readOf('orders', 1), at(10));
    const second = reader.read(readOf('lines', 1), at(10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const third = reader.read(readOf('items', 1), at(10));
    expect((await third).keys.size).toBe(1);
    release();
    await expect(first).rejects.toThrow('the dump failed');
    await expect(second).rejects.toThrow('the dump failed');
    expect(calls).toBe(2);
  });
});

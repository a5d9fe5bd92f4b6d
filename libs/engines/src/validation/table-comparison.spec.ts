import { createHash } from 'node:crypto';
import { segmentOf, type BucketSum, type ChecksumReader, type KeyDigest, type KeyRange, type SourceChecksumSnapshot, type SourceChecksums, type TableKey, type WarehouseChecksums } from './checksums';
import { DEFAULT_COMPARISON_LIMITS, TableTooBusyError, compareTable, keyRanges, pagesOf, type ComparisonHooks } from './table-comparison';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const keyHashOf = (key: string) => md5(key);
const digestOf = (key: string, value: string) => BigInt(`0x${md5(`${key}|${value}`).slice(0, 15)}`);

/** Rows as (key, value) pairs; a Type2 warehouse may hold a key twice. */
type Rows = Array<[string, string]>;

/** Keys of digits are an integer key (ranges and bounds apply); any other key is text. */
const integerKey = (key: string) => (/^-?\d+$/.test(key) ? BigInt(key) : null);
function inRange(key: string, range: KeyRange | undefined): boolean {
  if (range === undefined || (range.from === undefined && range.to === undefined)) return true;
  const value = integerKey(key);
  if (value === null) throw new Error(`a key range read of a table with the text key '${key}'`);
  return (range.from === undefined || value >= range.from) && (range.to === undefined || value < range.to);
}

function reader(rows: () => Rows, statements: string[] = []): ChecksumReader {
  const all = rows();
  // As the engines do: an integer key is its own bucket's hash, any other key its MD5's.
  const digest = ([key, value]: [string, string], buckets: number): KeyDigest => {
    const keyNumber = integerKey(key) ?? undefined;
    const keyHash = keyHashOf(key);
    return { bucket: segmentOf({ keyHash, keyNumber }, { buckets, subBuckets: 1 }), keyHash, key: [key], digest: digestOf(key, value), ...(keyNumber !== undefined && { keyNumber }) };
  };
  const within = (range: KeyRange | undefined) => all.filter(([key]) => inRange(key, range));
  return {
    integerKeyBounds: async () => {
      const keys = all.map(([key]) => integerKey(key));
      if (keys.length === 0 || keys.some((key) => key === null)) return null;
      const values = keys as bigint[];
      return { min: values.reduce((a, b) => (b < a ? b : a)), max: values.reduce((a, b) => (b > a ? b : a)) };
    },
    bucketSums: async (buckets, range) => {
      statements.push(`bucketSums ${JSON.stringify(range ?? {}, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}`);
      const frozen = within(range);
      const sums = new Map<number, BucketSum>();
      for (const row of frozen) {
        const { bucket, digest: rowDigest } = digest(row, buckets);
        const sum = sums.get(bucket) ?? { bucket, rows: 0, sum: 0n };
        sums.set(bucket, { bucket, rows: sum.rows + 1, sum: sum.sum + rowDigest });
      }
      return [...sums.values()];
    },
    segmentSums: async (segments, chosenBuckets, range) => {
      statements.push('segmentSums');
      const frozen = within(range);
      const sums = new Map<number, BucketSum>();
      for (const row of frozen.map((entry) => digest(entry, segments.buckets)).filter((entry) => chosenBuckets.includes(entry.bucket))) {
        const segment = segmentOf(row, segments);
        const sum = sums.get(segment) ?? { bucket: segment, rows: 0, sum: 0n };
        sums.set(segment, { bucket: segment, rows: sum.rows + 1, sum: sum.sum + row.digest });
      }
      return [...sums.values()];
    },
    keyDigestsInSegments: async (segments, chosen, range) => {
      statements.push('keyDigestsInSegments');
      return within(range)
        .map((row) => digest(row, segments.buckets))
        .filter((row) => chosen.includes(segmentOf(row, segments)));
    },
    digestsOfKeys: async (buckets, keys) => {
      const wanted = new Set(keys.map((key) => key.key[0]));
      return all.filter(([key]) => wanted.has(key)).map((row) => digest(row, buckets));
    },
    close: async () => undefined,
  };
}

/** A source whose every write is a change record at the next version, and a warehouse the test writes by hand. */
class Tables {
  source = new Map<string, string>();
  warehouse: Rows = [];
  version = 100;
  changes: Array<{ version: number; key: string }> = [];
  /** Runs when the comparison opens a source snapshot (the nth, from 1): writes that land "during" the comparison. */
  onSnapshot: (count: number) => void = () => undefined;
  /** Runs when the comparison opens a warehouse snapshot. */
  onWarehouse: (count: number) => void = () => undefined;
  snapshots = 0;
  warehouseReads = 0;
  /** The reads each side's snapshots were asked, in order. */
  sourceStatements: string[] = [];
  warehouseStatements: string[] = [];

  write(key: string, value: string | null): void {
    if (value === null) this.source.delete(key);
    else this.source.set(key, value);
    this.changes.push({ version: this.version, key });
    this.version += 1;
  }

  /** The warehouse catches up: it holds exactly the source's rows. */
  catchUp(): void {
    this.warehouse = [...this.source.entries()];
  }

  sourceSide(): SourceChecksums {
    return {
      withSnapshot: async (work) => {
        this.snapshots += 1;
        const snapshot: SourceChecksumSnapshot = {
          ...reader(() => [...this.source.entries()], this.sourceStatements),
          version: String(this.version),
          rowsEstimated: this.source.size,
          keysChangedSince: async (version, limit) => {
            const keys = [...new Set(this.changes.filter((change) => change.version >= Number(version)).map((change) => change.key))];
            return keys.length > limit ? null : keys.map((key): TableKey => ({ keyHash: keyHashOf(key), key: [key] }));
          },
        };
        this.onSnapshot(this.snapshots);
        try {
          return await work(snapshot);
        } finally {
          await snapshot.close();
        }
      },
      compareVersions: (left, right) => Number(left) - Number(right),
      markChanged: async (keys) => {
        for (const key of keys) this.changes.push({ version: this.version, key: key.key[0] ?? '' });
        this.version += 1;
        return String(this.version);
      },
    };
  }

  warehouseSide(): WarehouseChecksums {
    return {
      openSnapshot: async () => {
        this.warehouseReads += 1;
        this.onWarehouse(this.warehouseReads);
        return reader(() => [...this.warehouse], this.warehouseStatements);
      },
    };
  }
}

const hooks = (tables: Tables): ComparisonHooks => ({
  watermark: async () => String(tables.version),
  progress: async () => undefined,
  sleep: async () => undefined,
  now: () => 0,
});

function seeded(rows: number): Tables {
  const tables = new Tables();
  for (let id = 1; id <= rows; id += 1) tables.source.set(String(id), `value ${id}`);
  tables.catchUp();
  return tables;
}

const compare = (tables: Tables, keyed = true, limits = DEFAULT_COMPARISON_LIMITS) =>
  compareTable(tables.sourceSide(), tables.warehouseSide(), keyed, hooks(tables), limits);

describe('compareTable', () => {
  it('finds nothing between equal sides, having read each side once', async () => {
    const tables = seeded(5000);
    const result = await compare(tables);
    expect(result).toMatchObject({ rowsCompared: 5000, missing: 0, extra: 0, different: 0, unsettled: 0, differingKeys: [] });
    expect([tables.snapshots, tables.warehouseReads]).toEqual([1, 1]);
  });

  it('names exactly the keys that are missing, extra, different, or current twice', async () => {
    const tables = seeded(5000);
    tables.warehouse = tables.warehouse.filter(([key]) => key !== '17');
    tables.warehouse.push(['9999', 'not in the source'], ['42', 'value 42']);
    tables.warehouse = tables.warehouse.map(([key, value]): [string, string] => [key, key === '300' ? 'value 300 ' : value]);
    const result = await compare(tables);
    expect(result).toMatchObject({ missing: 1, extra: 2, different: 1, unsettled: 0, tooManyToRecheck: false });
    const named = result.differingKeys.map((found) => `${found.key[0]}:${found.difference}`).sort();
    expect(named).toEqual(['17:missing', '300:different', '42:extra', '9999:extra']);
  });

  it('sets aside a key written while the comparison ran, and finds it equal once the warehouse has it', async () => {
    const tables = seeded(3000);
    // After the source's sums were read, before the warehouse's: the warehouse already holds the new value.
    tables.onWarehouse = (count) => {
      if (count !== 1) return;
      tables.write('7', 'changed during the comparison');
      tables.write('8', null);
      tables.write('3001', 'inserted during the comparison');
      tables.catchUp();
    };
    const result = await compare(tables);
    expect(result).toMatchObject({ missing: 0, extra: 0, different: 0, unsettled: 0 });
  });

  it('reports a first-pass difference only when it still differs when checked again', async () => {
    const tables = seeded(2000);
    tables.warehouse = tables.warehouse.map(([key, value]): [string, string] => [key, key === '5' || key === '6' ? 'stale' : value]);
    // Key 5 is healed before the recheck (a cycle landed); key 6 is not.
    tables.onSnapshot = (count) => {
      if (count === 2) tables.warehouse = tables.warehouse.map(([key, value]): [string, string] => [key, key === '5' ? 'value 5' : value]);
    };
    const result = await compare(tables);
    expect(result.differingKeys.map((found) => found.key[0])).toEqual(['6']);
    expect(result.different).toBe(1);
  });

  it('leaves a key that changes in every round unsettled, never reported as different', async () => {
    const tables = seeded(1000);
    let turn = 0;
    tables.onWarehouse = () => {
      turn += 1;
      tables.write('1', `hot ${turn}`);
      // The warehouse is always a write behind on the hot key.
    };
    const result = await compare(tables);
    expect(result).toMatchObject({ missing: 0, extra: 0, different: 0, unsettled: 1 });
  });

  it('fails as too busy when more keys changed than it can set aside', async () => {
    const tables = seeded(100);
    tables.onWarehouse = () => {
      for (let id = 1; id <= 20; id += 1) tables.write(String(id), 'busy');
    };
    await expect(compare(tables, true, { ...DEFAULT_COMPARISON_LIMITS, maxChangedKeys: 10 })).rejects.toBeInstanceOf(TableTooBusyError);
  });

  it('cuts differing buckets into sub-buckets when they hold more than a page, and still names exactly the keys that differ', async () => {
    const tables = seeded(20000);
    const changedKeys = ['3', '777', '4242', '12000', '19999'];
    tables.warehouse = tables.warehouse.map(([key, value]): [string, string] => [key, changedKeys.includes(key) ? `${value}!` : value]);
    let readsOfKeys = 0;
    const side = tables.warehouseSide();
    const counting = {
      openSnapshot: async () => {
        const reader = await side.openSnapshot();
        return { ...reader, keyDigestsInSegments: (...args: Parameters<ChecksumReader['keyDigestsInSegments']>) => ((readsOfKeys += 1), reader.keyDigestsInSegments(...args)) };
      },
    };
    const result = await compareTable(tables.sourceSide(), counting, true, hooks(tables), { ...DEFAULT_COMPARISON_LIMITS, pageRows: 100 });
    expect(result.differingKeys.map((found) => found.key[0]).sort()).toEqual([...changedKeys].sort());
    // One read of the differing sub-buckets, not one per page of the differing buckets' rows.
    expect(readsOfKeys).toBe(1);
  });

  it('keeps the first pass counts without rechecking when too many keys differ', async () => {
    const tables = seeded(500);
    tables.warehouse = [];
    const result = await compare(tables, true, { ...DEFAULT_COMPARISON_LIMITS, maxRecheckKeys: 50 });
    expect(result.tooManyToRecheck).toBe(true);
    expect(result.missing).toBeGreaterThan(50);
    expect(result.differingKeys).toHaveLength(DEFAULT_COMPARISON_LIMITS.keysShown);
  });

  it('compares a table without a key as a whole: counts and one checksum', async () => {
    const tables = seeded(300);
    expect((await compare(tables, false)).wholeTable).toEqual({ sourceRows: 300, warehouseRows: 300, checksumsEqual: true });
    tables.warehouse[0] = ['1', 'value 1 '];
    expect((await compare(tables, false)).wholeTable).toEqual({ sourceRows: 300, warehouseRows: 300, checksumsEqual: false });
    tables.warehouse.pop();
    expect((await compare(tables, false)).wholeTable).toEqual({ sourceRows: 300, warehouseRows: 299, checksumsEqual: false });
  });

  it('waits for the watermark to pass the snapshot, and sets aside from the watermark when it does not', async () => {
    const tables = seeded(200);
    const behind = String(tables.version - 50);
    // Five keys changed after the watermark, and the warehouse, 50 versions behind, still holds their older values.
    for (let id = 1; id <= 5; id += 1) tables.changes.push({ version: tables.version - 10, key: String(id) });
    tables.warehouse = tables.warehouse.map(([key, value]): [string, string] => [key, Number(key) <= 5 ? 'older' : value]);
    let clock = 0;
    const lagging: ComparisonHooks = { watermark: async () => behind, progress: async () => undefined, sleep: async (ms) => void (clock += ms), now: () => clock };
    const result = await compareTable(tables.sourceSide(), tables.warehouseSide(), true, lagging);
    expect(clock).toBeGreaterThanOrEqual(DEFAULT_COMPARISON_LIMITS.watermarkWaitMs);
    // The five lagging keys changed after the watermark: they are never reported, whatever the rechecks see.
    expect(result).toMatchObject({ missing: 0, extra: 0, different: 0, unsettled: 5 });
  });
});

describe('compareTable on an idle table', () => {
  it('does not wait for a watermark that no change will move', async () => {
    const tables = seeded(100);
    // No cycle runs without a change, so the watermark stays below every later snapshot's version.
    const idle = String(tables.version - 3);
    let clock = 0;
    const lagging: ComparisonHooks = { watermark: async () => idle, progress: async () => undefined, sleep: async (ms) => void (clock += ms), now: () => clock };
    const result = await compareTable(tables.sourceSide(), tables.warehouseSide(), true, lagging);
    expect(clock).toBe(0);
    expect(result).toMatchObject({ missing: 0, extra: 0, different: 0, unsettled: 0 });
  });
});

describe('pagesOf', () => {
  it('groups buckets up to the page size, a larger bucket alone', () => {
    const buckets = [
      { bucket: 1, rows: 40 },
      { bucket: 2, rows: 40 },
      { bucket: 3, rows: 200 },
      { bucket: 4, rows: 10 },
    ];
    expect(pagesOf(buckets, 100)).toEqual([[1, 2], [3], [4]]);
  });
});

describe('compareTable under a rows/s cap', () => {
  /** A clock that only moves when the comparison sleeps. */
  function pacedHooks(tables: Tables) {
    let now = 0;
    const sleeps: number[] = [];
    const progress: number[] = [];
    const clock: ComparisonHooks = {
      watermark: async () => String(tables.version),
      progress: async (report) => void progress.push(report.rowsCompared),
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      now: () => now,
    };
    return { clock, sleeps, progress, elapsed: () => now };
  }

  it('reads an integer-keyed table range by range on both sides, no faster than the cap, and names the same keys as a whole read', async () => {
    const tables = seeded(50_000);
    tables.warehouse = tables.warehouse.filter(([key]) => key !== '17');
    // A warehouse row beyond the source's largest key: the last range is open above.
    tables.warehouse.push(['90000', 'not in the source']);
    tables.warehouse = tables.warehouse.map(([key, value]): [string, string] => [key, key === '30000' ? 'stale' : value]);
    const paced = pacedHooks(tables);
    const result = await compareTable(tables.sourceSide(), tables.warehouseSide(), true, paced.clock, { ...DEFAULT_COMPARISON_LIMITS, maxRowsPerSecond: 2000 });
    expect(result.differingKeys.map((found) => `${found.key[0]}:${found.difference}`).sort()).toEqual(['17:missing', '30000:different', '90000:extra']);
    expect(result.rowsCompared).toBe(50_000);
    // 10,000 rows a range (5 s at the cap): 5 ranges, the same on both sides, then the drill-down's passes range by range too.
    const firstPass = tables.sourceStatements.filter((statement) => statement.startsWith('bucketSums'));
    expect(firstPass).toEqual(['bucketSums {"to":"10001"}', 'bucketSums {"from":"10001","to":"20001"}', 'bucketSums {"from":"20001","to":"30001"}', 'bucketSums {"from":"30001","to":"40001"}', 'bucketSums {"from":"40001"}']);
    expect(tables.warehouseStatements.filter((statement) => statement.startsWith('bucketSums'))).toEqual(firstPass);
    // Every pass over the table is paced: at least the source's rows read by the passes, divided by the cap.
    expect(paced.elapsed()).toBeGreaterThanOrEqual((50_000 / 2000) * 1000);
    expect(paced.progress.filter((rows) => rows > 0 && rows < 50_000).length).toBeGreaterThanOrEqual(3);
    // 50,000 rows hashed on both sides, several passes: 3.4 s in a CI run beside the other unit suites, near jest's 5 s default.
  }, 30_000);

  it('reads a table whose key is not one integer column whole, cap or no cap', async () => {
    const tables = new Tables();
    for (let id = 1; id <= 3000; id += 1) tables.source.set(`k${id}`, `value ${id}`);
    tables.catchUp();
    const paced = pacedHooks(tables);
    const result = await compareTable(tables.sourceSide(), tables.warehouseSide(), true, paced.clock, { ...DEFAULT_COMPARISON_LIMITS, maxRowsPerSecond: 100 });
    expect(result).toMatchObject({ rowsCompared: 3000, missing: 0, extra: 0, different: 0 });
    expect(tables.sourceStatements).toEqual(['bucketSums {}']);
    expect(paced.sleeps).toEqual([]);
  });
});

describe('keyRanges', () => {
  it('cuts [min, max] into ranges of equal width, open at both ends, and one open range when one is asked', () => {
    expect(keyRanges({ min: 1n, max: 100n }, 4)).toEqual([{ to: 26n }, { from: 26n, to: 51n }, { from: 51n, to: 76n }, { from: 76n }]);
    expect(keyRanges({ min: -5n, max: 5n }, 1)).toEqual([{}]);
    // More ranges than keys: one key a range at most.
    expect(keyRanges({ min: 7n, max: 9n }, 10)).toEqual([{ to: 8n }, { from: 8n, to: 9n }, { from: 9n }]);
    expect(keyRanges({ min: 5n, max: 5n }, 3)).toEqual([{}]);
  });
});

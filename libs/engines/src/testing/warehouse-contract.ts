import type { BatchDescriptor, ScdType, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import type { ApplyOutcome } from '../batch';
import type { GroupedFiles, StagedFileReader, WarehouseConnector, WarehouseTableOptions } from '../capabilities';
import {
  OTHER_REPLICATION_ID,
  PORTABLE_COLUMN_TYPES,
  changes,
  contractTable,
  hostileNames,
  nameSize,
  pipelineCsv,
  seedPart,
  sortedRows,
  withColumn,
  type ContractColumnTypes,
  type ContractNaming,
  type Row,
} from './contract-batches';

/** One warehouse database opened for one test. */
export interface WarehouseUnderTest {
  connector: WarehouseConnector;
  /** Reads the files `stage` wrote. */
  reader: StagedFileReader;
  /**
   * Writes the batch's files as the stager writes them for this warehouse (PipelineEngine.stagedFileRows), from
   * the rows as the pipeline carries them (`csvParts`, one text per part).
   */
  stage(batch: BatchDescriptor, csvParts: readonly string[]): Promise<StagedFiles>;
  /**
   * The warehouse table's rows, each field as text (null for NULL, booleans 'true'/'false'): its source columns in
   * the table's order. Type2: the current rows only, or with `history` every row followed by its
   * svc_sys_is_current and svc_sys_is_deleted.
   */
  rows(table: TableRef, options: WarehouseTableOptions, history?: boolean): Promise<Row[]>;
  /** The warehouse table's source columns (not the service's svc_sys_ ones) in the table's order, as its catalog names them. */
  columnNames(table: TableRef, options: WarehouseTableOptions): Promise<string[]>;
  /** The database dropped and created again under the open connector (schema, control tables and tables gone). */
  recreateDatabase(): Promise<void>;
  /** Closes the connector and drops the database. */
  close(): Promise<void>;
}

export type WarehouseContractCase =
  | 'redelivery'
  | 'stale epochs'
  | 'seed parts'
  | 'recreated database'
  | 'added column'
  | 'null and empty'
  | 'hostile names'
  | 'forgotten batches'
  | 'replications apart'
  | 'Type1'
  | 'Type2'
  | 'change group'
  | 'change group with a stale member'
  | 'change group with a member loaded before'
  | 'change group rolled back'
  | 'change group refused';

export interface WarehouseContractEngine {
  name: string;
  /** A fresh database and a connector on it. */
  open(): Promise<WarehouseUnderTest>;
  naming: ContractNaming;
  columnTypes?: ContractColumnTypes;
  /** Cases the engine cannot keep, each with why: shown in the run as skipped with the reason, never skipped silently. */
  declaredLosses?: Partial<Record<WarehouseContractCase, string>>;
}

const SCD_TYPES: readonly ScdType[] = ['Type1', 'Type2'];
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Registers the warehouse contract (docs/PIPELINE.md, "Warehouse"; capabilities.ts WarehouseConnector) for each engine, in Type1 and Type2. */
export function describeWarehouseContract(engines: readonly WarehouseContractEngine[]): void {
  describe.each(engines.map((engine) => [engine.name, engine] as const))('warehouse contract: %s', (_name, engine) => {
    const types = engine.columnTypes ?? PORTABLE_COLUMN_TYPES;
    const people = contractTable({ schema: 'contract', name: 'people' }, types, 'id', ['name']);
    let warehouse: WarehouseUnderTest;
    let schemaCount = 0;

    beforeEach(async () => {
      warehouse = await engine.open();
    });

    afterEach(async () => {
      await warehouse.close();
    });

    const contractCase = (name: WarehouseContractCase, title: string, test: (scdType: ScdType) => Promise<void>, scdTypes: readonly ScdType[] = SCD_TYPES) => {
      const loss = engine.declaredLosses?.[name];
      for (const scdType of scdTypes) {
        if (loss === undefined) it(`${name} (${scdType}): ${title}`, () => test(scdType));
        else it.skip(`${name} (${scdType}): declared loss of ${engine.name}: ${loss}`, () => test(scdType));
      }
    };

    const optionsFor = (scdType: ScdType): WarehouseTableOptions => {
      schemaCount += 1;
      return { schema: `contract_${schemaCount}`, scdType, addUpdateTimestamp: false };
    };

    const load = async (definition: TableDefinition, batch: BatchDescriptor, rows: readonly Row[], options: WarehouseTableOptions): Promise<ApplyOutcome> => {
      await warehouse.connector.ensureTable(definition, options);
      return warehouse.connector.loadBatch(batch, await warehouse.stage(batch, [pipelineCsv(rows)]), warehouse.reader, options);
    };

    const current = async (table: TableRef, options: WarehouseTableOptions) => sortedRows(await warehouse.rows(table, options));

    /** Three more keyed tables, each seeded with one row into the schema `where` names; `zz_last` sorts after the others. */
    const groupTables = async (where: WarehouseTableOptions) => {
      const [orders, items, last] = ['orders', 'items', 'zz_last'].map((name) => contractTable({ schema: 'contract', name }, types, 'id', ['name']));
      if (orders === undefined || items === undefined || last === undefined) throw new Error('three tables');
      for (const definition of [people, orders, items, last]) {
        expect(await load(definition, seedPart(definition, 'S', 0, true), [['1', `${definition.table.name} 1`]], where)).toEqual({ applied: true, rowCount: 1 });
      }
      return { orders, items, last };
    };
    const member = async (batch: BatchDescriptor, rows: readonly Row[]): Promise<GroupedFiles> => ({ batch, files: await warehouse.stage(batch, [pipelineCsv(rows)]) });
    /** The warehouse's reader, writing down every part read. */
    const watchedReader = (): StagedFileReader & { reads: string[] } => {
      const reads: string[] = [];
      return { reads, readPart: (key) => (reads.push(key), warehouse.reader.readPart(key)) };
    };

    contractCase('change group', "three tables' change batches loaded in one transaction, each logged; single batches of a member's table before and after it", async (scdType) => {
      const where = optionsFor(scdType);
      const { orders, items } = await groupTables(where);
      expect(await load(people, changes(people, 100, 110), [['U', '1', 'Ann']], where)).toEqual({ applied: true, rowCount: 1 });
      // Not in table-name order: the outcomes come in the members' order all the same.
      const group = [
        await member(changes(people, 110, 120), [['U', '1', 'Anne'], ['I', '2', 'Bob']]),
        await member(changes(orders, 100, 110), [['D', '1', null], ['I', '2', 'second'], ['I', '3', 'third']]),
        await member(changes(items, 100, 110), [['U', '1', 'one']]),
      ];
      expect(await warehouse.connector.loadChangeGroup(group, warehouse.reader, where)).toEqual([
        { applied: true, rowCount: 2 },
        { applied: true, rowCount: 3 },
        { applied: true, rowCount: 1 },
      ]);
      for (const { batch } of group) expect(await warehouse.connector.hasLoaded(batch.batchId, where)).toBe(true);
      expect(await current(people.table, where)).toEqual([['1', 'Anne'], ['2', 'Bob']]);
      expect(await current(orders.table, where)).toEqual([['2', 'second'], ['3', 'third']]);
      expect(await current(items.table, where)).toEqual([['1', 'one']]);
      if (scdType === 'Type2') {
        expect(sortedRows(await warehouse.rows(orders.table, where, true))).toEqual([
          ['1', 'orders 1', 'false', 'true'],
          ['2', 'second', 'true', 'false'],
          ['3', 'third', 'true', 'false'],
        ]);
      }

      expect(await load(people, changes(people, 120, 130), [['D', '2', null]], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await current(people.table, where)).toEqual([['1', 'Anne']]);
      // Delivered again: every member was loaded before.
      expect(await warehouse.connector.loadChangeGroup(group, warehouse.reader, where)).toEqual(group.map(() => ({ applied: false, rowCount: 0 })));
      expect(await current(people.table, where)).toEqual([['1', 'Anne']]);
      expect(await warehouse.connector.loadChangeGroup([], warehouse.reader, where)).toEqual([]);
    });

    contractCase(
      'change group with a stale member',
      "a member below its table's fence is skipped, its files never read; the others load",
      async (scdType) => {
        const where = optionsFor(scdType);
        const { orders, items } = await groupTables(where);
        expect(await load(orders, changes(orders, 100, 110, 3), [['U', '1', 'newer']], where)).toEqual({ applied: true, rowCount: 1 });
        const stale = await member(changes(orders, 100, 120, 2), [['U', '1', 'stale']]);
        const reader = watchedReader();
        const outcomes = await warehouse.connector.loadChangeGroup([await member(changes(people, 100, 110, 2), [['I', '2', 'Bob']]), stale, await member(changes(items, 100, 110, 2), [['U', '1', 'one']])], reader, where);
        expect(outcomes).toEqual([{ applied: true, rowCount: 1 }, { applied: false, rowCount: 0, stale: true }, { applied: true, rowCount: 1 }]);
        expect(reader.reads.filter((key) => stale.files.partKeys.includes(key))).toEqual([]);
        expect(await warehouse.connector.hasLoaded(stale.batch.batchId, where)).toBe(false);
        expect(await current(orders.table, where)).toEqual([['1', 'newer']]);
        expect(await current(people.table, where)).toEqual([['1', 'people 1'], ['2', 'Bob']]);
        expect(await current(items.table, where)).toEqual([['1', 'one']]);
      },
      ['Type1'],
    );

    contractCase(
      'change group with a member loaded before',
      'a member loaded before changes nothing; the others load',
      async (scdType) => {
        const where = optionsFor(scdType);
        const { orders, items } = await groupTables(where);
        const before = changes(orders, 100, 110);
        expect(await load(orders, before, [['U', '1', 'first delivery']], where)).toEqual({ applied: true, rowCount: 1 });
        const outcomes = await warehouse.connector.loadChangeGroup(
          [await member(changes(items, 100, 110), [['U', '1', 'one']]), await member(before, [['U', '1', 'second delivery']]), await member(changes(people, 100, 110), [['D', '1', null]])],
          warehouse.reader,
          where,
        );
        expect(outcomes).toEqual([{ applied: true, rowCount: 1 }, { applied: false, rowCount: 0 }, { applied: true, rowCount: 1 }]);
        expect(await current(orders.table, where)).toEqual([['1', 'first delivery']]);
        expect(await current(items.table, where)).toEqual([['1', 'one']]);
        expect(await current(people.table, where)).toEqual([]);
      },
      ['Type1'],
    );

    contractCase(
      'change group rolled back',
      'a member that fails (its files unreadable, its table missing) rolls every member back: no row, no log entry, no fence',
      async (scdType) => {
        const where = optionsFor(scdType);
        const { orders, last } = await groupTables(where);
        const missing = contractTable({ schema: 'contract', name: 'zz_missing' }, types, 'id', ['name']);
        const seeded = async () => {
          expect(await current(people.table, where)).toEqual([['1', 'people 1']]);
          expect(await current(orders.table, where)).toEqual([['1', 'orders 1']]);
          expect(await current(last.table, where)).toEqual([['1', 'zz_last 1']]);
        };
        const good = [await member(changes(people, 100, 110, 5), [['U', '1', 'Anne']]), await member(changes(orders, 100, 110, 5), [['I', '2', 'second']])];
        // The failing member's table sorts last: the others' rows are merged when it fails.
        const unreadable = await member(changes(last, 100, 110, 5), [['I', '2', 'x']]);
        const failing: StagedFileReader = {
          readPart: (key) => (unreadable.files.partKeys.includes(key) ? Promise.reject(new Error('the part cannot be read')) : warehouse.reader.readPart(key)),
        };
        await expect(warehouse.connector.loadChangeGroup([...good, unreadable], failing, where)).rejects.toThrow('the part cannot be read');
        await seeded();
        await expect(warehouse.connector.loadChangeGroup([...good, await member(changes(missing, 100, 110, 5), [['I', '2', 'x']])], warehouse.reader, where)).rejects.toThrow();
        await seeded();
        for (const { batch } of [...good, unreadable]) {
          expect(await warehouse.connector.hasLoaded(batch.batchId, where)).toBe(false);
          // Fences stay at the seeds' epoch 1: a batch of epoch 4 is not stale.
          expect(await warehouse.connector.isStale({ ...batch, epoch: 4 }, where)).toBe(false);
        }
        // The caller then loads the members one by one.
        for (const { batch, files } of good) expect(await warehouse.connector.loadBatch(batch, files, warehouse.reader, where)).toEqual({ applied: true, rowCount: 1 });
        expect(await current(orders.table, where)).toEqual([['1', 'orders 1'], ['2', 'second']]);
      },
      ['Type1'],
    );

    contractCase(
      'change group refused',
      'a group with a seed part, a keyless table or two batches of one table is refused before anything is read',
      async (scdType) => {
        const where = optionsFor(scdType);
        const { orders } = await groupTables(where);
        const keyless = { ...orders, table: { schema: 'contract', name: 'keyless' }, primaryKey: [] };
        const refusals: [BatchDescriptor, RegExp][] = [
          [seedPart(orders, 'T', 0, true, 2), /contract\.orders.*seed part/],
          [changes(keyless, 100, 110), /contract\.keyless.*no primary key/],
          [changes(people, 110, 120), /two batches of contract\.people/],
          [{ ...changes(orders, 110, 120), body: { kind: 'changes', fromVersion: '110', toVersion: '120', after: '100' } }, /contract\.orders.*backlog/],
          [{ ...changes(orders, 110, 120), body: { kind: 'changes', fromVersion: '110', toVersion: '120', closesSeed: { seedId: 'C', chunkCount: 2 } } }, /contract\.orders.*chunked seed/],
        ];
        const first = await member(changes(people, 100, 110), [['U', '1', 'Anne']]);
        // Never staged: a refused batch's files are not read.
        const files: StagedFiles = { bucket: 'bucket', manifestKey: 'refused/manifest.json', partKeys: ['refused/part-00000.csv.gz'] };
        for (const [batch, refusal] of refusals) {
          const reader = watchedReader();
          await expect(warehouse.connector.loadChangeGroup([first, { batch, files }], reader, where)).rejects.toThrow(refusal);
          expect(reader.reads).toEqual([]);
        }
        expect(await warehouse.connector.hasLoaded(first.batch.batchId, where)).toBe(false);
        expect(await current(people.table, where)).toEqual([['1', 'people 1']]);
      },
      ['Type1'],
    );

    contractCase('redelivery', 'a batch delivered twice is loaded once', async (scdType) => {
      const where = optionsFor(scdType);
      const seed = seedPart(people, 'S', 0, true);
      expect(await load(people, seed, [['1', 'Ann'], ['2', 'Bob']], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await load(people, seed, [['3', 'Cid']], where)).toEqual({ applied: false, rowCount: 0 });
      expect(await warehouse.connector.hasLoaded(seed.batchId, where)).toBe(true);
      const update = changes(people, 100, 110);
      expect(await load(people, update, [['U', '1', 'Anne']], where)).toEqual({ applied: true, rowCount: 1 });
      // The same batch id with other rows: the log, not the rows, decides.
      expect(await load(people, update, [['U', '1', 'Annie'], ['D', '2', null]], where)).toEqual({ applied: false, rowCount: 0 });
      expect(await current(people.table, where)).toEqual([['1', 'Anne'], ['2', 'Bob']]);
    });

    contractCase('stale epochs', 'a batch below the fence loads nothing; a newer epoch fences the older', async (scdType) => {
      const where = optionsFor(scdType);
      const seed = seedPart(people, 'S', 0, true, 1);
      expect(await load(people, seed, [['1', 'Ann']], where)).toEqual({ applied: true, rowCount: 1 });
      const older = changes(people, 100, 110, 1);
      const newer = changes(people, 100, 120, 2);
      expect(await warehouse.connector.isStale(older, where)).toBe(false);
      expect(await load(people, newer, [['U', '1', 'Anne']], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await warehouse.connector.isStale(older, where)).toBe(true);
      expect(await warehouse.connector.isStale(newer, where)).toBe(false);
      expect(await warehouse.connector.isStale(changes(people, 120, 130, 3), where)).toBe(false);
      expect(await load(people, older, [['U', '1', 'stale']], where)).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(await warehouse.connector.hasLoaded(older.batchId, where)).toBe(false);
      expect(await load(people, seedPart(people, 'OLD', 0, true, 1), [['9', 'old']], where)).toEqual({ applied: false, rowCount: 0, stale: true });
      // Loaded before, then redelivered once newer work raised the fence: stale (cancelled work, not passed on), not "loaded before".
      expect(await load(people, seed, [['1', 'Ann']], where)).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(await current(people.table, where)).toEqual([['1', 'Anne']]);

      // A batch loaded before, delivered again by a newer unit of work, raises the fence all the same.
      expect(await load(people, { ...newer, epoch: 4 }, [['U', '1', 'again']], where)).toEqual({ applied: false, rowCount: 0 });
      expect(await warehouse.connector.isStale(changes(people, 120, 130, 3), where)).toBe(true);
      expect(await current(people.table, where)).toEqual([['1', 'Anne']]);
    });

    contractCase('seed parts', 'part k before its seed started loads nothing and is not recorded; in order, the final part shows every part; a part of an abandoned seed loads nothing', async (scdType) => {
      const where = optionsFor(scdType);
      const [part0, part1, part2] = [0, 1, 2].map((part) => seedPart(people, 'S', part, part === 2));
      if (part0 === undefined || part1 === undefined || part2 === undefined) throw new Error('three parts');
      expect(await load(people, part1, [['3', 'Cid']], where)).toMatchObject({ applied: false });
      expect(await warehouse.connector.hasLoaded(part1.batchId, where)).toBe(false);

      expect(await load(people, part0, [['1', 'Ann'], ['2', 'Bob']], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await load(people, part1, [['3', 'Cid']], where)).toEqual({ applied: true, rowCount: 1 });
      // The target shows no half-seeded table before the final part.
      expect(await current(people.table, where)).toEqual([]);
      expect(await load(people, part2, [['4', 'Dan']], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await current(people.table, where)).toEqual([['1', 'Ann'], ['2', 'Bob'], ['3', 'Cid'], ['4', 'Dan']]);

      // A seed T of the same unit starts and ends; a late part of the abandoned seed U adds nothing.
      const abandoned = [0, 1].map((part) => seedPart(people, 'U', part, part === 1));
      expect(await load(people, abandoned[0] ?? part0, [['8', 'Uma']], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await load(people, seedPart(people, 'T', 0, true), [['1', 'Ann'], ['7', 'Tom']], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await load(people, abandoned[1] ?? part2, [['9', 'Ula']], where)).toMatchObject({ applied: false });
      expect(await current(people.table, where)).toEqual([['1', 'Ann'], ['7', 'Tom']]);
    });

    contractCase('forgotten batches', 'the log forgets batches loaded before the time given, and only those', async (scdType) => {
      const where = optionsFor(scdType);
      const seed = seedPart(people, 'S', 0, true);
      expect(await load(people, seed, [['1', 'Ann']], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await warehouse.connector.forgetLoadedBatches(new Date(Date.now() - HOUR_MS), where)).toBe(0);
      expect(await warehouse.connector.hasLoaded(seed.batchId, where)).toBe(true);
      expect(await warehouse.connector.forgetLoadedBatches(new Date(Date.now() + MINUTE_MS), where)).toBe(1);
      expect(await warehouse.connector.hasLoaded(seed.batchId, where)).toBe(false);
      expect(await current(people.table, where)).toEqual([['1', 'Ann']]);
    });

    contractCase('replications apart', "two replications loading one table: one's epoch never fences the other's batches", async (scdType) => {
      const where = optionsFor(scdType);
      expect(await load(people, seedPart(people, 'S', 0, true, 5), [['1', 'Ann']], where)).toEqual({ applied: true, rowCount: 1 });
      const other = changes(people, 100, 110, 1, OTHER_REPLICATION_ID);
      expect(await warehouse.connector.isStale(other, where)).toBe(false);
      expect(await load(people, other, [['I', '2', 'Bob']], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await warehouse.connector.isStale(changes(people, 100, 110, 4), where)).toBe(true);
      expect(await load(people, changes(people, 100, 120, 4), [['U', '1', 'stale']], where)).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(await current(people.table, where)).toEqual([['1', 'Ann'], ['2', 'Bob']]);
    });

    contractCase('recreated database', 'the database recreated under the open connector: control objects are created again and the reseed loads', async (scdType) => {
      const where = optionsFor(scdType);
      const first = seedPart(people, 'S', 0, true);
      expect(await load(people, first, [['1', 'Ann']], where)).toEqual({ applied: true, rowCount: 1 });
      await warehouse.recreateDatabase();

      const reseed = seedPart(people, 'R', 0, true, 2);
      expect(await warehouse.connector.isStale(reseed, where)).toBe(false);
      expect(await warehouse.connector.hasTable(people.table, where)).toBe(false);
      expect(await warehouse.connector.hasLoaded(first.batchId, where)).toBe(false);
      expect(await warehouse.connector.ensureTable(people, where)).toMatchObject({ created: true, addedColumns: [] });
      expect(await warehouse.connector.loadBatch(reseed, await warehouse.stage(reseed, [pipelineCsv([['2', 'Bob']])]), warehouse.reader, where)).toEqual({ applied: true, rowCount: 1 });
      expect(await current(people.table, where)).toEqual([['2', 'Bob']]);
    });

    contractCase('added column', 'a column added at the source is added once, NULL in the rows before it, and filled by the next batches', async (scdType) => {
      const where = optionsFor(scdType);
      expect(await load(people, seedPart(people, 'S', 0, true), [['1', 'Ann'], ['2', 'Bob']], where)).toEqual({ applied: true, rowCount: 2 });
      const wider = withColumn(people, types, 'note');
      expect(await warehouse.connector.ensureTable(wider, where)).toMatchObject({ created: false, addedColumns: ['note'] });
      expect(await warehouse.connector.ensureTable(wider, where)).toMatchObject({ created: false, addedColumns: [] });
      expect(await warehouse.columnNames(people.table, where)).toEqual(['id', 'name', 'note']);
      expect(await load(wider, changes(wider, 100, 110), [['I', '3', 'Cid', 'new'], ['U', '2', 'Bob', 'set']], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await current(people.table, where)).toEqual([['1', 'Ann', null], ['2', 'Bob', 'set'], ['3', 'Cid', 'new']]);
    });

    contractCase('null and empty', "NULL and '' stay two values, through a seed and through changes", async (scdType) => {
      const where = optionsFor(scdType);
      expect(await load(people, seedPart(people, 'S', 0, true), [['1', null], ['2', ''], ['3', ' '], ['4', 'a ']], where)).toEqual({ applied: true, rowCount: 4 });
      expect(await current(people.table, where)).toEqual([['1', null], ['2', ''], ['3', ' '], ['4', 'a ']]);
      expect(await load(people, changes(people, 100, 110), [['U', '1', ''], ['U', '2', null]], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await current(people.table, where)).toEqual([['1', ''], ['2', null], ['3', ' '], ['4', 'a ']]);
      // Trailing blanks are part of a value: a change that only drops them is a change.
      expect(await load(people, changes(people, 110, 120), [['U', '3', ''], ['U', '4', 'a']], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await current(people.table, where)).toEqual([['1', ''], ['2', null], ['3', ''], ['4', 'a']]);
    });

    contractCase('hostile names', 'quotes, brackets, blanks, case, non-ASCII letters and the longest name the engine keeps round-trip', async (scdType) => {
      const where = optionsFor(scdType);
      const names = hostileNames(engine.naming);
      const stored = engine.naming.stored ?? ((name: string) => name);
      const longName = names.columns[names.columns.length - 1] ?? '';
      expect(nameSize(longName)).toMatchObject(engine.naming.longest);
      const hostile = contractTable({ schema: names.schema, name: names.table }, types, 'Ïd "key"', names.columns.slice(0, -1));
      const values = names.columns.slice(0, -1).map((name) => `${name}!`);
      expect(await load(hostile, seedPart(hostile, 'S', 0, true), [['1', ...values]], where)).toEqual({ applied: true, rowCount: 1 });
      expect(await warehouse.connector.hasTable(hostile.table, where)).toBe(true);

      const wider = withColumn(hostile, types, longName);
      expect(await warehouse.connector.ensureTable(wider, where)).toMatchObject({ created: false, addedColumns: [longName] });
      expect(await warehouse.connector.ensureTable(wider, where)).toMatchObject({ created: false, addedColumns: [] });
      expect(await warehouse.columnNames(hostile.table, where)).toEqual(wider.columns.map((column) => stored(column.name)));
      const updated = [...values].reverse();
      expect(await load(wider, changes(wider, 100, 110), [['U', '1', ...updated, 'long'], ['I', '2', ...values.map(() => null), null]], where)).toEqual({ applied: true, rowCount: 2 });
      expect(await current(hostile.table, where)).toEqual([['1', ...updated, 'long'], ['2', ...values.map(() => null), null]]);
    });

    contractCase(
      'Type1',
      'inserts, updates and deletes by key; a reseed replaces the table',
      async (scdType) => {
        const where = optionsFor(scdType);
        expect(await load(people, seedPart(people, 'S', 0, true), [['1', 'Ann'], ['2', 'Bob'], ['3', 'Cid']], where)).toEqual({ applied: true, rowCount: 3 });
        // One batch in two files, as the stager cuts a large one.
        const twoParts = changes(people, 100, 110);
        await warehouse.connector.ensureTable(people, where);
        const files = await warehouse.stage(twoParts, [pipelineCsv([['U', '1', 'Anne'], ['D', '2', null]]), pipelineCsv([['I', '4', 'Dan']])]);
        expect(await warehouse.connector.loadBatch(twoParts, files, warehouse.reader, where)).toEqual({ applied: true, rowCount: 3 });
        expect(await current(people.table, where)).toEqual([['1', 'Anne'], ['3', 'Cid'], ['4', 'Dan']]);
        expect(await load(people, seedPart(people, 'R', 0, true, 2), [['3', 'Cyd'], ['5', 'Eve']], where)).toEqual({ applied: true, rowCount: 2 });
        expect(await current(people.table, where)).toEqual([['3', 'Cyd'], ['5', 'Eve']]);
      },
      ['Type1'],
    );

    contractCase(
      'Type2',
      'a change closes the current row and adds a version; a delete closes it as deleted; an unchanged row gets no version',
      async (scdType) => {
        const where = optionsFor(scdType);
        expect(await load(people, seedPart(people, 'S', 0, true), [['1', 'Ann'], ['2', 'Bob'], ['3', 'Cid']], where)).toEqual({ applied: true, rowCount: 3 });
        expect(await load(people, changes(people, 100, 110), [['U', '1', 'Anne'], ['D', '2', null], ['U', '3', 'Cid'], ['I', '4', 'Dan']], where)).toEqual({
          applied: true,
          rowCount: 4,
        });
        expect(await current(people.table, where)).toEqual([['1', 'Anne'], ['3', 'Cid'], ['4', 'Dan']]);
        expect(sortedRows(await warehouse.rows(people.table, where, true))).toEqual([
          ['1', 'Ann', 'false', 'false'],
          ['1', 'Anne', 'true', 'false'],
          ['2', 'Bob', 'false', 'true'],
          ['3', 'Cid', 'true', 'false'],
          ['4', 'Dan', 'true', 'false'],
        ]);

        // A reseed: an unchanged key keeps its row, a changed one gets a version, a missing one is closed as deleted,
        // a deleted key that is back gets a current row again.
        expect(await load(people, seedPart(people, 'R', 0, true, 2), [['1', 'Anne'], ['2', 'Bob'], ['3', 'Cyd'], ['5', 'Eve']], where)).toEqual({ applied: true, rowCount: 4 });
        expect(await current(people.table, where)).toEqual([['1', 'Anne'], ['2', 'Bob'], ['3', 'Cyd'], ['5', 'Eve']]);
        expect(sortedRows(await warehouse.rows(people.table, where, true))).toEqual([
          ['1', 'Ann', 'false', 'false'],
          ['1', 'Anne', 'true', 'false'],
          ['2', 'Bob', 'false', 'true'],
          ['2', 'Bob', 'true', 'false'],
          ['3', 'Cid', 'false', 'false'],
          ['3', 'Cyd', 'true', 'false'],
          ['4', 'Dan', 'false', 'true'],
          ['5', 'Eve', 'true', 'false'],
        ]);
      },
      ['Type2'],
    );
  });
}

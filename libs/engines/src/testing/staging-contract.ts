import type { TableDefinition, TableRef } from '@svc/contracts';
import type { CsvChunks } from '../batch';
import type { GroupedRows, StagingConnector } from '../capabilities';
import {
  OTHER_REPLICATION_ID,
  PORTABLE_COLUMN_TYPES,
  WatchedRows,
  changes,
  chunked,
  contractTable,
  hostileNames,
  nameSize,
  pipelineCsv,
  seedChunk,
  seedPart,
  sortedRows,
  unreadableRows,
  withColumn,
  type ContractColumnTypes,
  type ContractNaming,
  type Row,
} from './contract-batches';

const MINUTE_MS = 60_000;
/** How long a chunk may take beside another whose rows are held: far more than it needs, far less than forever. */
const CHUNK_WAIT_MS = 15_000;

/** Rows whose first bytes come at once and the rest once `gate` opens: a chunk still being read. */
function heldRows(text: string, gate: Promise<void>): CsvChunks {
  const bytes = Buffer.from(text, 'utf8');
  return (async function* () {
    yield bytes.subarray(0, 2);
    await gate;
    yield bytes.subarray(2);
  })();
}
const HOUR_MS = 60 * MINUTE_MS;

/** One staging database opened for one test. */
export interface StagingUnderTest {
  connector: StagingConnector;
  /** Every row of the staging table, each field as text (null for NULL), columns in the table's order. */
  rows(table: TableRef): Promise<Row[]>;
  /** The database dropped and created again under the open connector (control objects and tables gone). */
  recreateDatabase(): Promise<void>;
  /** Closes the connector and drops the database. */
  close(): Promise<void>;
}

/** The cases of the staging contract; a declared loss names one of them with its reason. */
export type StagingContractCase =
  | 'redelivery'
  | 'stale epochs'
  | 'seed parts'
  | 'seed chunks'
  | 'seed chunks at once'
  | 'seed chunks beside another replication'
  | 'recreated database'
  | 'added column'
  | 'null and empty'
  | 'hostile names'
  | 'forgotten batches'
  | 'replications apart'
  | 'forgotten replication'
  | 'change group'
  | 'change group with a stale member'
  | 'change group with a member applied before'
  | 'change group rolled back'
  | 'change group refused';

export interface StagingContractEngine {
  /** As the suite's titles show it: `PostgreSQL`, `SQL Server (double)`. */
  name: string;
  /** A fresh database and a connector on it. */
  open(): Promise<StagingUnderTest>;
  naming: ContractNaming;
  columnTypes?: ContractColumnTypes;
  /**
   * Cases the engine cannot keep, each with why (docs/ENGINES.md). Each still shows in the run, as skipped with
   * the reason in its title: a loss is declared here, never skipped silently.
   */
  declaredLosses?: Partial<Record<StagingContractCase, string>>;
  /**
   * Set when the database under test runs one transaction at a time (a double without sessions), with why: the cases
   * that need two sessions at once show as skipped with the reason in their title.
   */
  oneSessionAtATime?: string;
}

/** The cases that need two sessions in flight at once. */
const CONCURRENT_CASES: ReadonlySet<StagingContractCase> = new Set(['seed chunks at once', 'seed chunks beside another replication']);
/** Long enough for a chunk that is not held up to be applied. */
const NOT_HELD_UP_MS = 2_000;

/** Registers the staging contract (docs/PIPELINE.md, "Staging"; capabilities.ts StagingConnector) for each engine. */
export function describeStagingContract(engines: readonly StagingContractEngine[]): void {
  describe.each(engines.map((engine) => [engine.name, engine] as const))('staging contract: %s', (_name, engine) => {
    const types = engine.columnTypes ?? PORTABLE_COLUMN_TYPES;
    const people = contractTable({ schema: 'contract', name: 'people' }, types, 'id', ['name']);
    let staging: StagingUnderTest;

    beforeEach(async () => {
      staging = await engine.open();
    });

    afterEach(async () => {
      await staging.close();
    });

    const contractCase = (name: StagingContractCase, title: string, test: () => Promise<void>) => {
      const loss = engine.declaredLosses?.[name];
      if (loss !== undefined) it.skip(`${name}: declared loss of ${engine.name}: ${loss}`, test);
      else if (engine.oneSessionAtATime !== undefined && CONCURRENT_CASES.has(name)) it.skip(`${name}: not run on ${engine.name}: ${engine.oneSessionAtATime}`, test);
      else it(`${name}: ${title}`, test);
    };

    const apply = async (definition: TableDefinition, batch: Parameters<StagingConnector['applyBatch']>[0], rows: readonly Row[]) => {
      await staging.connector.ensureTable(definition);
      return staging.connector.applyBatch(batch, chunked(pipelineCsv(rows)));
    };

    /** Three more keyed tables of the contract schema, each seeded with one row; `zz_last` sorts after the others. */
    const groupTables = async () => {
      const [orders, items, last] = ['orders', 'items', 'zz_last'].map((name) => contractTable({ schema: 'contract', name }, types, 'id', ['name']));
      if (orders === undefined || items === undefined || last === undefined) throw new Error('three tables');
      for (const definition of [people, orders, items, last]) {
        expect(await apply(definition, seedPart(definition, 'S', 0, true), [['1', `${definition.table.name} 1`]])).toEqual({ applied: true, rowCount: 1 });
      }
      return { orders, items, last };
    };
    const member = (batch: GroupedRows['batch'], rows: readonly Row[]): GroupedRows => ({ batch, rows: chunked(pipelineCsv(rows)) });

    contractCase('change group', "three tables' change batches applied in one transaction, each logged; single batches of a member's table before and after it", async () => {
      const { orders, items } = await groupTables();
      expect(await apply(people, changes(people, 100, 110), [['U', '1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      // Not in table-name order: the outcomes come in the members' order all the same.
      const group = [
        member(changes(people, 110, 120), [['U', '1', 'Anne'], ['I', '2', 'Bob']]),
        member(changes(orders, 100, 110), [['D', '1', null], ['I', '2', 'second'], ['I', '3', 'third']]),
        member(changes(items, 100, 110), [['U', '1', 'one']]),
      ];
      expect(await staging.connector.applyChangeGroup(group)).toEqual([
        { applied: true, rowCount: 2 },
        { applied: true, rowCount: 3 },
        { applied: true, rowCount: 1 },
      ]);
      for (const { batch } of group) expect(await staging.connector.hasApplied(batch.batchId)).toBe(true);
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Anne'], ['2', 'Bob']]);
      expect(sortedRows(await staging.rows(orders.table))).toEqual([['2', 'second'], ['3', 'third']]);
      expect(sortedRows(await staging.rows(items.table))).toEqual([['1', 'one']]);

      expect(await apply(people, changes(people, 120, 130), [['D', '2', null]])).toEqual({ applied: true, rowCount: 1 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Anne']]);
      expect(await staging.connector.applyChangeGroup([])).toEqual([]);
    });

    contractCase('change group with a stale member', "a member below its table's fence is skipped, its rows never read; the others apply", async () => {
      const { orders, items } = await groupTables();
      expect(await apply(orders, changes(orders, 100, 110, 3), [['U', '1', 'newer']])).toEqual({ applied: true, rowCount: 1 });
      const stale = changes(orders, 100, 120, 2);
      const outcomes = await staging.connector.applyChangeGroup([
        member(changes(people, 100, 110, 2), [['I', '2', 'Bob']]),
        { batch: stale, rows: unreadableRows() },
        member(changes(items, 100, 110, 2), [['U', '1', 'one']]),
      ]);
      expect(outcomes).toEqual([{ applied: true, rowCount: 1 }, { applied: false, rowCount: 0, stale: true }, { applied: true, rowCount: 1 }]);
      expect(await staging.connector.hasApplied(stale.batchId)).toBe(false);
      expect(sortedRows(await staging.rows(orders.table))).toEqual([['1', 'newer']]);
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'people 1'], ['2', 'Bob']]);
      expect(sortedRows(await staging.rows(items.table))).toEqual([['1', 'one']]);
    });

    contractCase('change group with a member applied before', 'a member applied before changes nothing and has its rows read to the end; the others apply', async () => {
      const { orders, items } = await groupTables();
      const before = changes(orders, 100, 110);
      expect(await apply(orders, before, [['U', '1', 'first delivery']])).toEqual({ applied: true, rowCount: 1 });
      const again = new WatchedRows(pipelineCsv([['U', '1', 'second delivery']]));
      const outcomes = await staging.connector.applyChangeGroup([
        member(changes(items, 100, 110), [['U', '1', 'one']]),
        { batch: before, rows: again },
        member(changes(people, 100, 110), [['D', '1', null]]),
      ]);
      expect(outcomes).toEqual([{ applied: true, rowCount: 1 }, { applied: false, rowCount: 0 }, { applied: true, rowCount: 1 }]);
      expect(again.finished).toBe(true);
      expect(sortedRows(await staging.rows(orders.table))).toEqual([['1', 'first delivery']]);
      expect(sortedRows(await staging.rows(items.table))).toEqual([['1', 'one']]);
      expect(await staging.rows(people.table)).toEqual([]);
    });

    contractCase('change group rolled back', 'a member that fails (malformed rows, a missing table) rolls every member back: no row, no log entry, no fence', async () => {
      const { orders, last } = await groupTables();
      const missing = contractTable({ schema: 'contract', name: 'zz_missing' }, types, 'id', ['name']);
      const seeded = async () => {
        expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'people 1']]);
        expect(sortedRows(await staging.rows(orders.table))).toEqual([['1', 'orders 1']]);
        expect(sortedRows(await staging.rows(last.table))).toEqual([['1', 'zz_last 1']]);
      };
      const good = () => [member(changes(people, 100, 110, 5), [['U', '1', 'Anne']]), member(changes(orders, 100, 110, 5), [['I', '2', 'second']])];
      // The failing member's table sorts last: the others' rows are in when it fails.
      const malformed = changes(last, 100, 110, 5);
      await expect(staging.connector.applyChangeGroup([...good(), { batch: malformed, rows: chunked('"I","2","an unterminated quoted field\n') }])).rejects.toThrow();
      await seeded();
      await expect(staging.connector.applyChangeGroup([...good(), member(changes(missing, 100, 110, 5), [['I', '2', 'x']])])).rejects.toThrow();
      await seeded();
      for (const { batch } of [...good(), { batch: malformed }]) {
        expect(await staging.connector.hasApplied(batch.batchId)).toBe(false);
        // Fences stay at the seeds' epoch 1: a batch of epoch 4 is not stale.
        expect(await staging.connector.isStale({ ...batch, epoch: 4 })).toBe(false);
      }
      // The caller then applies the members one by one.
      for (const { batch, rows } of good()) expect(await staging.connector.applyBatch(batch, rows)).toEqual({ applied: true, rowCount: 1 });
      expect(sortedRows(await staging.rows(orders.table))).toEqual([['1', 'orders 1'], ['2', 'second']]);
    });

    contractCase('change group refused', 'a group with a seed part, a keyless table or two batches of one table is refused before anything is read', async () => {
      const { orders } = await groupTables();
      const keyless = { ...orders, table: { schema: 'contract', name: 'keyless' }, primaryKey: [] };
      const refusals: [GroupedRows['batch'], RegExp][] = [
        [seedPart(orders, 'T', 0, true, 2), /contract\.orders.*seed part/],
        [changes(keyless, 100, 110), /contract\.keyless.*no primary key/],
        [changes(people, 110, 120), /two batches of contract\.people/],
        [{ ...changes(orders, 110, 120), body: { kind: 'changes', fromVersion: '110', toVersion: '120', after: '100' } }, /contract\.orders.*backlog/],
        [{ ...changes(orders, 110, 120), body: { kind: 'changes', fromVersion: '110', toVersion: '120', closesSeed: { seedId: 'C', chunkCount: 2 } } }, /contract\.orders.*chunked seed/],
      ];
      for (const [batch, refusal] of refusals) {
        const first = new WatchedRows(pipelineCsv([['U', '1', 'Anne']]));
        await expect(staging.connector.applyChangeGroup([{ batch: changes(people, 100, 110), rows: first }, { batch, rows: unreadableRows() }])).rejects.toThrow(refusal);
        expect(first.started).toBe(false);
      }
      expect(await staging.connector.hasApplied(changes(people, 100, 110).batchId)).toBe(false);
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'people 1']]);
    });

    contractCase('redelivery', 'a batch delivered twice is applied once; the second delivery reads its rows to the end and changes nothing', async () => {
      const seed = seedPart(people, 'S', 0, true);
      expect(await apply(people, seed, [['1', 'Ann'], ['2', 'Bob']])).toEqual({ applied: true, rowCount: 2 });
      const again = new WatchedRows(pipelineCsv([['3', 'Cid']]));
      expect(await staging.connector.applyBatch(seed, again)).toEqual({ applied: false, rowCount: 0 });
      expect(again.finished).toBe(true);
      expect(await staging.connector.hasApplied(seed.batchId)).toBe(true);

      const update = changes(people, 100, 110);
      expect(await apply(people, update, [['U', '1', 'Anne']])).toEqual({ applied: true, rowCount: 1 });
      // The same batch id with other rows: the log, not the rows, decides.
      expect(await apply(people, update, [['U', '1', 'Annie'], ['D', '2', null]])).toEqual({ applied: false, rowCount: 0 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Anne'], ['2', 'Bob']]);
    });

    contractCase('stale epochs', 'a batch below the fence is refused unread; a newer epoch fences the older', async () => {
      const seed = seedPart(people, 'S', 0, true, 1);
      expect(await apply(people, seed, [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      const older = changes(people, 100, 110, 1);
      const newer = changes(people, 100, 120, 2);
      expect(await staging.connector.isStale(older)).toBe(false);
      expect(await apply(people, newer, [['U', '1', 'Anne']])).toEqual({ applied: true, rowCount: 1 });

      expect(await staging.connector.isStale(older)).toBe(true);
      expect(await staging.connector.isStale(newer)).toBe(false);
      expect(await staging.connector.isStale(changes(people, 120, 130, 3))).toBe(false);
      const unread = new WatchedRows(pipelineCsv([['U', '1', 'stale']]));
      expect(await staging.connector.applyBatch(older, unread)).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(unread.started).toBe(false);
      expect(await staging.connector.hasApplied(older.batchId)).toBe(false);
      // A seed part of the cancelled unit is refused the same way.
      expect(await apply(people, seedPart(people, 'OLD', 0, true, 1), [['9', 'old']])).toEqual({ applied: false, rowCount: 0, stale: true });
      // Applied before, then redelivered once newer work raised the fence: stale (cancelled work, not passed on), not "applied before".
      expect(await apply(people, seed, [['1', 'Ann']])).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Anne']]);

      // A batch applied before, delivered again by a newer unit of work, raises the fence all the same.
      expect(await apply(people, { ...newer, epoch: 4 }, [['U', '1', 'again']])).toEqual({ applied: false, rowCount: 0 });
      expect(await staging.connector.isStale(changes(people, 120, 130, 3))).toBe(true);
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Anne']]);
    });

    contractCase('seed parts', 'part k before its seed started adds nothing and is not recorded; in order, parts append; a part of an abandoned seed adds nothing', async () => {
      const [part0, part1, part2] = [0, 1, 2].map((part) => seedPart(people, 'S', part, part === 2));
      if (part0 === undefined || part1 === undefined || part2 === undefined) throw new Error('three parts');
      expect(await apply(people, part1, [['3', 'Cid']])).toMatchObject({ applied: false });
      expect(await staging.connector.hasApplied(part1.batchId)).toBe(false);
      expect(await staging.rows(people.table)).toEqual([]);

      expect(await apply(people, part0, [['1', 'Ann'], ['2', 'Bob']])).toEqual({ applied: true, rowCount: 2 });
      // Part 1 delivered again, now after its predecessor: applied.
      expect(await apply(people, part1, [['3', 'Cid']])).toEqual({ applied: true, rowCount: 1 });
      // Another seed of the same unit of work starts: the rest of S belongs to an abandoned seed.
      expect(await apply(people, seedPart(people, 'T', 0, false), [['7', 'Tom']])).toEqual({ applied: true, rowCount: 1 });
      expect(await apply(people, part2, [['4', 'Dan']])).toMatchObject({ applied: false });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['7', 'Tom']]);
    });

    contractCase('seed chunks', 'chunks of a seed apply in any order, the first starting it; a redelivered chunk adds nothing; a newer seed fences the older one out', async () => {
      expect(await apply(people, seedPart(people, 'OLD', 0, true), [['9', 'Old']])).toEqual({ applied: true, rowCount: 1 });
      // Chunk 2 arrives first: it starts the seed (the rows of the one before go).
      expect(await apply(people, seedChunk(people, 'S', 2, 2), [['5', 'Eve']])).toEqual({ applied: true, rowCount: 1 });
      expect(await apply(people, seedChunk(people, 'S', 0, 2), [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      expect(await apply(people, seedChunk(people, 'S', 1, 2), [['3', 'Cid']])).toEqual({ applied: true, rowCount: 1 });
      expect(await apply(people, seedChunk(people, 'S', 1, 2), [['3', 'Cid']])).toMatchObject({ applied: false });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Ann'], ['3', 'Cid'], ['5', 'Eve']]);
      // A newer seed (a higher epoch) starts: the older seed's chunks are stale from then on.
      expect(await apply(people, seedChunk(people, 'T', 0, 3), [['7', 'Tom']])).toEqual({ applied: true, rowCount: 1 });
      expect(await apply(people, seedChunk(people, 'S', 3, 2), [['8', 'Ned']])).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['7', 'Tom']]);
    });

    contractCase('seed chunks at once', "one chunk whose rows are still coming holds up no other chunk of its seed", async () => {
      expect(await apply(people, seedChunk(people, 'S', 2, 2), [['5', 'Eve']])).toEqual({ applied: true, rowCount: 1 });
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const held = staging.connector.applyBatch(seedChunk(people, 'S', 0, 2), heldRows(pipelineCsv([['1', 'Ann']]), gate));
      let timer: NodeJS.Timeout | undefined;
      const heldUp = new Promise<'held up'>((resolve) => (timer = setTimeout(() => resolve('held up'), CHUNK_WAIT_MS)));
      const beside = await Promise.race([apply(people, seedChunk(people, 'S', 1, 2), [['3', 'Cid']]), heldUp]);
      clearTimeout(timer);
      release();
      expect(beside).toEqual({ applied: true, rowCount: 1 });
      expect(await held).toEqual({ applied: true, rowCount: 1 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Ann'], ['3', 'Cid'], ['5', 'Eve']]);
    });

    contractCase('seed chunks beside another replication', "a table two replications write takes their chunks one at a time: a merge beside the other's write of the same key would fail or lose one", async () => {
      expect(await apply(people, seedChunk(people, 'A', 0, 1), [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      const other = (index: number) => seedChunk(people, 'B', index, 1, OTHER_REPLICATION_ID);
      expect(await apply(people, other(0), [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const held = staging.connector.applyBatch(seedChunk(people, 'A', 1, 1), heldRows(pipelineCsv([['5', 'Eve']]), gate));
      await new Promise((done) => setTimeout(done, 200));
      let besideDone = false;
      const beside = apply(people, other(1), [['5', 'Eve']]).then((outcome) => ((besideDone = true), outcome));
      await new Promise((done) => setTimeout(done, NOT_HELD_UP_MS));
      const appliedBeside = besideDone;
      release();
      expect(await held).toEqual({ applied: true, rowCount: 1 });
      expect(await beside).toEqual({ applied: true, rowCount: 1 });
      expect(appliedBeside).toBe(false);
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Ann'], ['5', 'Eve']]);
    });

    contractCase('forgotten batches', 'the log forgets batches applied before the time given, and only those', async () => {
      const seed = seedPart(people, 'S', 0, true);
      expect(await apply(people, seed, [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      expect(await staging.connector.forgetAppliedBatches(new Date(Date.now() - HOUR_MS))).toBe(0);
      expect(await staging.connector.hasApplied(seed.batchId)).toBe(true);
      expect(await staging.connector.forgetAppliedBatches(new Date(Date.now() + MINUTE_MS))).toBe(1);
      expect(await staging.connector.hasApplied(seed.batchId)).toBe(false);
      expect(await staging.rows(people.table)).toEqual([['1', 'Ann']]);
    });

    contractCase('replications apart', "two replications writing one table: one's epoch never fences the other's batches; a seed of a shared keyed table merges by key", async () => {
      expect(await apply(people, seedPart(people, 'S', 0, true, 5), [['1', 'Ann'], ['2', 'Bob']])).toEqual({ applied: true, rowCount: 2 });
      const otherSeed = seedPart(people, 'O', 0, true, 1, OTHER_REPLICATION_ID);
      expect(await staging.connector.isStale(otherSeed)).toBe(false);
      expect(await apply(people, otherSeed, [['2', 'Bobby'], ['3', 'Cid']])).toEqual({ applied: true, rowCount: 2 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Ann'], ['2', 'Bobby'], ['3', 'Cid']]);
      expect(await apply(people, changes(people, 100, 110, 1, OTHER_REPLICATION_ID), [['D', '3', null]])).toEqual({ applied: true, rowCount: 1 });
      // Each keeps its own fence.
      expect(await staging.connector.isStale(changes(people, 100, 110, 4))).toBe(true);
      expect(await apply(people, changes(people, 100, 120, 4), [['U', '1', 'stale']])).toEqual({ applied: false, rowCount: 0, stale: true });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Ann'], ['2', 'Bobby']]);
    });

    contractCase('forgotten replication', "a replication's records forgotten (it was deleted): the table is no longer shared, and the next replication's seed empties it", async () => {
      const orders = contractTable({ schema: 'contract', name: 'orders' }, types, 'id', ['name']);
      expect(await apply(people, seedPart(people, 'S', 0, true, 3, OTHER_REPLICATION_ID), [['1', 'Ann'], ['2', 'Bob']])).toEqual({ applied: true, rowCount: 2 });
      expect(await apply(orders, seedPart(orders, 'S', 0, true, 3, OTHER_REPLICATION_ID), [['1', 'first']])).toEqual({ applied: true, rowCount: 1 });
      // One table left the replication: its fence and seed record go, the other table's stay.
      expect(await staging.connector.forgetReplication(OTHER_REPLICATION_ID, [orders.table])).toBe(2);
      expect(await apply(orders, seedPart(orders, 'N', 0, true), [['2', 'second']])).toEqual({ applied: true, rowCount: 1 });
      expect(sortedRows(await staging.rows(orders.table))).toEqual([['2', 'second']]);
      // Deleted: every record goes; a second forget finds nothing, another replication's records stay.
      expect(await apply(people, changes(people, 100, 110), [['I', '9', 'kept apart']])).toEqual({ applied: true, rowCount: 1 });
      expect(await staging.connector.forgetReplication(OTHER_REPLICATION_ID)).toBe(2);
      expect(await staging.connector.forgetReplication(OTHER_REPLICATION_ID)).toBe(0);
      expect(await staging.connector.isStale(changes(people, 100, 110, 0))).toBe(true);
      const reseed = seedPart(people, 'N', 0, true, 2);
      expect(await apply(people, reseed, [['3', 'Cid']])).toEqual({ applied: true, rowCount: 1 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['3', 'Cid']]);
    });

    contractCase('recreated database', 'the database recreated under the open connector: control objects are created again and the next seed applies', async () => {
      const first = seedPart(people, 'S', 0, true);
      expect(await apply(people, first, [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      await staging.recreateDatabase();

      // The stager's order: staleness first, then ensureTable, then the batch.
      const reseed = seedPart(people, 'R', 0, true, 2);
      expect(await staging.connector.isStale(reseed)).toBe(false);
      expect(await staging.connector.existingColumns(people.table)).toBeNull();
      expect(await staging.connector.ensureTable(people)).toMatchObject({ created: true, addedColumns: [] });
      expect(await staging.connector.applyBatch(reseed, chunked(pipelineCsv([['2', 'Bob']])))).toEqual({ applied: true, rowCount: 1 });
      expect(await staging.connector.hasApplied(first.batchId)).toBe(false);
      expect(await staging.connector.hasApplied(reseed.batchId)).toBe(true);
      expect(await staging.rows(people.table)).toEqual([['2', 'Bob']]);
    });

    contractCase('added column', 'a column added at the source is added once, NULL in the rows before it, and filled by the next batches', async () => {
      expect(await apply(people, seedPart(people, 'S', 0, true), [['1', 'Ann']])).toEqual({ applied: true, rowCount: 1 });
      const wider = withColumn(people, types, 'note');
      expect(await staging.connector.ensureTable(wider)).toMatchObject({ created: false, addedColumns: ['note'] });
      expect(await staging.connector.ensureTable(wider)).toMatchObject({ created: false, addedColumns: [] });
      expect(await staging.connector.existingColumns(people.table)).toEqual(['id', 'name', 'note']);
      expect(await apply(wider, changes(wider, 100, 110), [['I', '2', 'Bob', 'new']])).toEqual({ applied: true, rowCount: 1 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', 'Ann', null], ['2', 'Bob', 'new']]);
    });

    contractCase('null and empty', "NULL and '' stay two values, through a seed and through changes", async () => {
      expect(await apply(people, seedPart(people, 'S', 0, true), [['1', null], ['2', ''], ['3', ' '], ['4', 'a ']])).toEqual({ applied: true, rowCount: 4 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', null], ['2', ''], ['3', ' '], ['4', 'a ']]);
      expect(await apply(people, changes(people, 100, 110), [['U', '1', ''], ['U', '2', null]])).toEqual({ applied: true, rowCount: 2 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', ''], ['2', null], ['3', ' '], ['4', 'a ']]);
      // Trailing blanks are part of a value: a change that only drops them is a change.
      expect(await apply(people, changes(people, 110, 120), [['U', '3', ''], ['U', '4', 'a']])).toEqual({ applied: true, rowCount: 2 });
      expect(sortedRows(await staging.rows(people.table))).toEqual([['1', ''], ['2', null], ['3', ''], ['4', 'a']]);
    });

    contractCase('hostile names', 'quotes, brackets, blanks, case, non-ASCII letters and the longest name the engine keeps round-trip', async () => {
      const names = hostileNames(engine.naming);
      const stored = engine.naming.stored ?? ((name: string) => name);
      const longName = names.columns[names.columns.length - 1] ?? '';
      expect(nameSize(longName)).toMatchObject(engine.naming.longest);
      const hostile = contractTable({ schema: names.schema, name: names.table }, types, 'Ïd "key"', names.columns.slice(0, -1));
      expect(await staging.connector.ensureTable(hostile)).toMatchObject({ created: true });
      const values = names.columns.slice(0, -1).map((name) => `${name}!`);
      expect(await staging.connector.applyBatch(seedPart(hostile, 'S', 0, true), chunked(pipelineCsv([['1', ...values]])))).toEqual({ applied: true, rowCount: 1 });

      const updated = [...values].reverse();
      const wider = withColumn(hostile, types, longName);
      expect(await staging.connector.ensureTable(wider)).toMatchObject({ created: false, addedColumns: [longName] });
      expect(await staging.connector.ensureTable(wider)).toMatchObject({ created: false, addedColumns: [] });
      expect(await staging.connector.existingColumns(hostile.table)).toEqual(wider.columns.map((column) => stored(column.name)));
      expect(await staging.connector.applyBatch(changes(wider, 100, 110), chunked(pipelineCsv([['U', '1', ...updated, 'long'], ['I', '2', ...values.map(() => null), null]])))).toEqual({
        applied: true,
        rowCount: 2,
      });
      expect(sortedRows(await staging.rows(hostile.table))).toEqual([['1', ...updated, 'long'], ['2', ...values.map(() => null), null]]);
    });
  });
}

import { Portable, type BatchDescriptor, type ScdType, type StagedFiles, type TableDefinition } from '@svc/contracts';
import type { WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { stdinCopyLoader, type StagedFileLoader } from './file-loaders';
import { MemoryParts, redshiftOnPostgres } from './testing/redshift-on-postgres-warehouse';

/**
 * The Redshift warehouse's statements executed on PostgreSQL (dialect 'postgres': VARBYTE as hex text,
 * IDENTITY and SYSDATE spelled PostgreSQL's way), with the files loaded by COPY FROM STDIN instead of COPY from S3,
 * on sessions that fold quoted names and ignore trailing blanks in text = as Redshift does (redshift-on-postgres.ts).
 * Not a real Redshift: this proves the merges, fences and batch log row for row.
 */
let database: TempDatabase;
let sql: Client;
let warehouse: WarehouseConnector;
let schemaCount = 0;

const parts = new MemoryParts();

beforeAll(async () => {
  database = await createTempDatabase('rs_dialect');
  sql = new Client({ connectionString: database.url });
  await sql.connect();
  warehouse = redshiftOnPostgres(database.url);
});

afterAll(async () => {
  await warehouse.close();
  await sql.end();
  await database.drop();
});

const items: TableDefinition = {
  table: { schema: 'public', name: 'items' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
    { name: 'name', sourceType: 'text', portableType: Portable.text(), nullable: true },
    { name: 'price', sourceType: 'numeric(12,2)', portableType: Portable.decimal(12, 2), nullable: true },
    { name: 'blob', sourceType: 'bytea', portableType: Portable.binary(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};

const seed = (seedId: string, part: number, final: boolean, epoch = 1): BatchDescriptor => ({
  batchId: `items:seed:${seedId}:${part}`,
  replicationId: 'r1',
  epoch,
  definition: items,
  body: { kind: 'seed', seedId, part, final, startVersion: '1' },
});
const changes = (from: number, to: number, epoch = 1): BatchDescriptor => ({
  batchId: `items:changes:${from}:${to}`,
  replicationId: 'r1',
  epoch,
  definition: items,
  body: { kind: 'changes', fromVersion: String(from), toVersion: String(to) },
});

function options(scdType: ScdType, addUpdateTimestamp = false): WarehouseTableOptions {
  schemaCount += 1;
  return { schema: `rs_${schemaCount}`, scdType, addUpdateTimestamp };
}

function stage(batch: BatchDescriptor, csv: string): StagedFiles {
  const key = `files/${batch.batchId}/part-00000.csv.gz`;
  parts.put(key, csv);
  return { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [key] };
}

const load = (batch: BatchDescriptor, csv: string, where: WarehouseTableOptions) => warehouse.loadBatch(batch, stage(batch, csv), parts, where);

async function rows(where: WarehouseTableOptions, columns = 'id, name, price, blob', filter = 'true'): Promise<unknown[][]> {
  const result = await sql.query({ text: `SELECT ${columns} FROM ${where.schema}.items WHERE ${filter} ORDER BY id, 1`, rowMode: 'array' });
  return result.rows as unknown[][];
}

const SEED = `"1","apple","1.50","0aff"\n"2","","2.00",\\N\n"3",\\N,\\N,\\N\n`;

describe('the Redshift dialect on PostgreSQL (not a real Redshift)', () => {
  it('makes a new schema and its control tables once when several loaders race to (two replications into one warehouse)', async () => {
    // Each connector is a loader process of its own; all of them meet a schema nobody has made yet at the same moment.
    const loaders = Array.from({ length: 6 }, () => redshiftOnPostgres(database.url));
    try {
      for (let round = 0; round < 5; round += 1) {
        const where = options('Type1');
        const answers = await Promise.allSettled(loaders.map((loader) => loader.hasLoaded('never-loaded', where)));
        expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : String(answer.reason)))).toEqual(loaders.map(() => false));
      }
    } finally {
      await Promise.all(loaders.map((loader) => loader.close()));
    }
  });

  it('makes one new schema and a table in it when two loaders ensure the table at the same moment (issue 21, item 26)', async () => {
    // PostgreSQL fails the slower of two concurrent CREATE SCHEMA IF NOT EXISTS with a unique violation on
    // pg_namespace once the faster committed; Redshift, which has no advisory lock to serialise them, with a
    // serializable isolation violation. Each round is a new schema that two fresh loaders meet at once.
    for (let round = 0; round < 8; round += 1) {
      const loaders = [0, 1].map(() => redshiftOnPostgres(database.url));
      try {
        const where = options('Type1');
        const answers = await Promise.allSettled(loaders.map((loader) => loader.ensureTable(items, where)));
        expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value.created : String(answer.reason))).sort()).toEqual([false, true]);
      } finally {
        await Promise.all(loaders.map((loader) => loader.close()));
      }
    }
  });

  it('Type1: a seed in two parts, then changes with a key update and a delete; NULL and empty strings stay apart', async () => {
    const where = options('Type1', true);
    expect(await warehouse.ensureTable(items, where)).toEqual({ created: true, addedColumns: [] });
    expect(await load(seed('A', 0, false), SEED, where)).toEqual({ applied: true, rowCount: 3 });
    expect(await rows(where)).toEqual([]);
    expect(await load(seed('A', 1, true), `"4","quote "" comma, newline\n and 😀 \\ backslash","4.00",\\N\n`, where)).toEqual({ applied: true, rowCount: 1 });
    expect(await rows(where)).toEqual([
      [1, 'apple', '1.50', '0aff'],
      [2, '', '2.00', null],
      [3, null, null, null],
      [4, 'quote " comma, newline\n and 😀 \\ backslash', '4.00', null],
    ]);
    expect(await load(changes(1, 2), `"U","1","apple pie","1.75","0aff"\n"D","2",\\N,\\N,\\N\n"D","3",\\N,\\N,\\N\n"I","30","three",\\N,\\N\n`, where)).toEqual({ applied: true, rowCount: 4 });
    expect(await rows(where)).toEqual([
      [1, 'apple pie', '1.75', '0aff'],
      [4, 'quote " comma, newline\n and 😀 \\ backslash', '4.00', null],
      [30, 'three', null, null],
    ]);
    expect(await rows(where, 'id', 'svc_sys_update_timestamp IS NOT NULL')).toEqual([[1], [4], [30]]);
  });

  it('a batch loaded again, or a stale one, changes nothing', async () => {
    const where = options('Type1');
    await warehouse.ensureTable(items, where);
    await load(seed('A', 0, true, 2), SEED, where);
    const before = await rows(where);
    expect(await load(seed('A', 0, true, 2), SEED, where)).toEqual({ applied: false, rowCount: 0 });
    expect(await load(changes(1, 2, 1), `"D","1",\\N,\\N,\\N\n`, where)).toEqual({ applied: false, rowCount: 0, stale: true });
    expect(await warehouse.isStale(changes(1, 2, 1), where)).toBe(true);
    expect(await warehouse.hasLoaded(seed('A', 0, true, 2).batchId, where)).toBe(true);
    expect(await rows(where)).toEqual(before);
  });

  it('Type2: an unchanged row gets no version, a change closes the current row, a delete marks it deleted', async () => {
    const where = options('Type2');
    await warehouse.ensureTable(items, where);
    await load(seed('A', 0, true), SEED, where);
    await load(changes(1, 2), `"U","1","apple","1.50","0aff"\n"U","2","two","2.00",\\N\n"D","3",\\N,\\N,\\N\n`, where);
    expect(await rows(where, 'id, name, svc_sys_is_current, svc_sys_is_deleted')).toEqual([
      [1, 'apple', true, false],
      [2, '', false, false],
      [2, 'two', true, false],
      [3, null, false, true],
    ]);
    // A reseed with key 1 gone, key 2 changed back and key 5 new.
    await load(seed('B', 0, true), `"2","","2.00",\\N\n"5","five",\\N,\\N\n`, where);
    expect(await rows(where, 'id, name, svc_sys_is_deleted', 'svc_sys_is_current')).toEqual([
      [2, '', false],
      [5, 'five', false],
    ]);
    expect(await rows(where, 'id, svc_sys_is_deleted', 'id = 1 AND NOT svc_sys_is_current')).toEqual([[1, true]]);
  });

  it('Type2: a change equal to one of a key\'s two current rows (a broken copy being repaired) closes both and leaves one current', async () => {
    const where = options('Type2');
    await warehouse.ensureTable(items, where);
    await load(seed('A', 0, true), SEED, where);
    await load(changes(1, 2), `"U","1","apricot","1.50","0aff"\n`, where);
    // Broken by hand: "uniqueness, primary key, and foreign key constraints are informational only; they are not enforced
    // by Amazon Redshift" (https://docs.aws.amazon.com/redshift/latest/dg/t_Defining_constraints.html), so an older
    // version can be current again beside the newest.
    await sql.query(`UPDATE ${where.schema}.items SET svc_sys_is_current = true WHERE id = 1 AND name = 'apple'`);
    await load(changes(2, 3), `"U","1","apricot","1.50","0aff"\n`, where);
    expect(await rows(where, 'id, name', 'svc_sys_is_current AND id = 1')).toEqual([[1, 'apricot']]);
  });

  it('a reseed replaces a NULL by a value and a value by a NULL, in Type1 and in Type2', async () => {
    for (const scdType of ['Type1', 'Type2'] as const) {
      const where = options(scdType);
      await warehouse.ensureTable(items, where);
      await load(seed('A', 0, true), SEED, where);
      await load(seed('B', 0, true), `"1",\\N,"1.50","0aff"\n"2","","2.00",\\N\n"3","named now",\\N,"00"\n`, where);
      const current = scdType === 'Type1' ? 'true' : 'svc_sys_is_current';
      expect(await rows(where, 'id, name, price, blob', current)).toEqual([
        [1, null, '1.50', '0aff'],
        [2, '', '2.00', null],
        [3, 'named now', null, '00'],
      ]);
    }
  });

  it('a part of an abandoned seed adds nothing; the newer seed replaces the table', async () => {
    const where = options('Type1');
    await warehouse.ensureTable(items, where);
    await load(seed('A', 0, false), SEED, where);
    await load(seed('B', 0, false), `"7","seven",\\N,\\N\n`, where);
    expect(await load(seed('A', 1, true), `"8","eight",\\N,\\N\n`, where)).toEqual({ applied: false, rowCount: 0 });
    await load(seed('B', 1, true), `"9","nine",\\N,\\N\n`, where);
    expect(await rows(where, 'id, name')).toEqual([
      [7, 'seven'],
      [9, 'nine'],
    ]);
  });

  // Redshift's DROP TABLE runs inside a transaction for a regular table and, RESTRICT by default, refuses a table a view
  // depends on (https://docs.aws.amazon.com/redshift/latest/dg/r_DROP_TABLE.html); PostgreSQL, under this dialect, does the same.
  it('makes the shadow with a seed\'s first part and drops it with its last (issue 40); one a view reads is emptied and kept', async () => {
    const shadowOf = async (schema: string) => (await sql.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [`${schema}.svc_seed_items`])).rows[0] as { found: boolean };
    const where = options('Type1');
    await warehouse.ensureTable(items, where);
    expect(await shadowOf(where.schema)).toEqual({ found: false });
    await load(seed('A', 0, false), SEED, where);
    expect(await shadowOf(where.schema)).toEqual({ found: true });
    await load(seed('A', 1, true), `"4","four",\\N,\\N\n`, where);
    expect(await shadowOf(where.schema)).toEqual({ found: false });
    expect((await rows(where, 'id')).length).toBe(4);

    // A view on the shadow (Redshift has no savepoint to try the DROP): the seed completes, the shadow is emptied and stays.
    await load(seed('B', 0, false), SEED, where);
    await sql.query(`CREATE VIEW ${where.schema}.shadow_watch AS SELECT id FROM ${where.schema}.svc_seed_items`);
    expect(await load(seed('B', 1, true), `"5","five",\\N,\\N\n`, where)).toEqual({ applied: true, rowCount: 1 });
    expect(await shadowOf(where.schema)).toEqual({ found: true });
    expect((await sql.query(`SELECT count(*)::int AS n FROM ${where.schema}.svc_seed_items`)).rows).toEqual([{ n: 0 }]);
    expect(await rows(where, 'id')).toEqual([[1], [2], [3], [5]]);
  });

  it('adds a source column one ALTER at a time, to the target and to a running seed\'s shadow', async () => {
    const where = options('Type1');
    await warehouse.ensureTable(items, where);
    // A shadow lives while a seed runs (issue 40): this one's first part made it.
    await load(seed('A', 0, false), SEED, where);
    const wider = { ...items, columns: [...items.columns, { name: 'note', sourceType: 'varchar(10)', portableType: Portable.varchar(10), nullable: true }] };
    expect(await warehouse.ensureTable(wider, where)).toEqual({ created: false, addedColumns: ['note'] });
    const types = await sql.query(`SELECT table_name, data_type, character_maximum_length FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'note' ORDER BY 1`, [where.schema]);
    expect(types.rows).toEqual([
      { table_name: 'items', data_type: 'character varying', character_maximum_length: 40 },
      { table_name: 'svc_seed_items', data_type: 'character varying', character_maximum_length: 40 },
    ]);
  });
});

/**
 * The loader writes only into warehouse tables it created (issue 19), with the same rule as the PostgreSQL
 * warehouse (claimTable in @svc/engines); here Redshift's own statements record and read the ownership.
 */
describe('the Redshift dialect on PostgreSQL: tables the service did not create', () => {
  const reason = (qualified: string) =>
    `Warehouse table ${qualified} exists and was not created by this service: it is not written. Drop or rename it, or choose another warehouse database or Warehouse.DatabaseSchema`;
  const anotherLoader = () => redshiftOnPostgres(database.url);

  it("refuses a user's table of the same name and leaves its rows; a restarted loader refuses it too", async () => {
    const where = options('Type1');
    await sql.query(`CREATE SCHEMA ${where.schema};
CREATE TABLE ${where.schema}.items (id integer PRIMARY KEY, name text, owner text);
INSERT INTO ${where.schema}.items VALUES (1, 'theirs', 'finance')`);

    await expect(warehouse.ensureTable(items, where)).rejects.toThrow(reason(`${where.schema}.items`));
    const restarted = anotherLoader();
    try {
      await expect(restarted.ensureTable(items, where)).rejects.toThrow(reason(`${where.schema}.items`));
    } finally {
      await restarted.close();
    }
    expect((await sql.query(`SELECT id, name, owner FROM ${where.schema}.items`)).rows).toEqual([{ id: 1, name: 'theirs', owner: 'finance' }]);
    expect((await sql.query(`SELECT to_regclass($1) AS shadow`, [`${where.schema}.svc_seed_items`])).rows).toEqual([{ shadow: null }]);
    expect((await sql.query(`SELECT table_name FROM ${where.schema}.svc_sys_owned_tables`)).rows).toEqual([]);
  });

  it('records what it creates, and a restarted loader keeps loading it', async () => {
    const where = options('Type1');
    expect(await warehouse.ensureTable(items, where)).toEqual({ created: true, addedColumns: [] });
    expect(await load(seed('A', 0, true), SEED, where)).toEqual({ applied: true, rowCount: 3 });
    const restarted = anotherLoader();
    try {
      expect(await restarted.ensureTable(items, where)).toEqual({ created: false, addedColumns: [] });
      expect(await restarted.loadBatch(changes(1, 2), stage(changes(1, 2), `"D","2",\\N,\\N,\\N\n`), parts, where)).toEqual({ applied: true, rowCount: 1 });
    } finally {
      await restarted.close();
    }
    expect(await rows(where, 'id')).toEqual([[1], [3]]);
    expect((await sql.query(`SELECT table_name FROM ${where.schema}.svc_sys_owned_tables ORDER BY 1`)).rows).toEqual([{ table_name: 'items' }, { table_name: 'svc_seed_items' }]);
  });

  it('adopts a table an earlier version created (named by its fence), and its shadow, and records them', async () => {
    const where = options('Type1');
    await sql.query(`CREATE SCHEMA ${where.schema};
CREATE TABLE ${where.schema}.svc_sys_loaded_batches (batch_id VARCHAR(4096) NOT NULL PRIMARY KEY, loaded_at TIMESTAMP NOT NULL);
CREATE TABLE ${where.schema}.svc_sys_table_seeds (table_name VARCHAR(512) NOT NULL PRIMARY KEY, seed_id VARCHAR(1024) NOT NULL);
CREATE TABLE ${where.schema}.svc_sys_table_fences (replication_id VARCHAR(64) NOT NULL, table_name VARCHAR(512) NOT NULL, epoch BIGINT NOT NULL, PRIMARY KEY (replication_id, table_name));
INSERT INTO ${where.schema}.svc_sys_table_fences VALUES ('r1', 'items', 1)`);
    // The earlier version's tables: made by the same DDL in another schema (its shadow by a seed's first part), then moved in.
    const earlier = options('Type1');
    await warehouse.ensureTable(items, earlier);
    await load(seed('E', 0, false), SEED, earlier);
    const made = earlier.schema;
    await sql.query(`ALTER TABLE ${made}.items SET SCHEMA ${where.schema}; ALTER TABLE ${made}.svc_seed_items SET SCHEMA ${where.schema};
INSERT INTO ${where.schema}.items (id, name) VALUES (1, 'kept')`);

    expect(await warehouse.ensureTable(items, where)).toEqual({ created: false, addedColumns: [] });
    expect(await load(changes(5, 6), `"I","2","new",\\N,\\N\n`, where)).toEqual({ applied: true, rowCount: 1 });
    expect(await rows(where, 'id, name')).toEqual([
      [1, 'kept'],
      [2, 'new'],
    ]);
    expect((await sql.query(`SELECT table_name FROM ${where.schema}.svc_sys_owned_tables ORDER BY 1`)).rows).toEqual([{ table_name: 'items' }, { table_name: 'svc_seed_items' }]);
    // The earlier version's fence and seed record are the table's own now: a batch of an older epoch is refused.
    await sql.query(`UPDATE ${where.schema}.svc_sys_table_fences SET epoch = 3`);
    const upgraded = options('Type1');
    await sql.query(`ALTER SCHEMA ${where.schema} RENAME TO ${upgraded.schema}`);
    await sql.query(`DROP TABLE ${upgraded.schema}.svc_sys_ctl_items; INSERT INTO ${upgraded.schema}.svc_sys_table_seeds VALUES ('items', 'S')`);
    expect(await warehouse.ensureTable(items, upgraded)).toEqual({ created: false, addedColumns: [] });
    expect(await load(changes(6, 7, 2), `"I","3","old epoch",\\N,\\N\n`, upgraded)).toEqual({ applied: false, rowCount: 0, stale: true });
    // A batch the earlier version loaded is known from the schema's batch log alone: it is not loaded again.
    await sql.query(`INSERT INTO ${upgraded.schema}.svc_sys_loaded_batches VALUES ('items:changes:7:8', now())`);
    expect(await load(changes(7, 8, 3), `"I","4","again",\\N,\\N\n`, upgraded)).toEqual({ applied: false, rowCount: 0 });
    expect(await rows(upgraded, 'id, name')).toEqual([
      [1, 'kept'],
      [2, 'new'],
    ]);
    expect((await sql.query(`SELECT kind, subject, epoch, seed_id FROM ${upgraded.schema}.svc_sys_ctl_items ORDER BY kind`)).rows).toEqual([
      { kind: 'fence', subject: 'r1', epoch: '3', seed_id: null },
      { kind: 'seed', subject: '', epoch: null, seed_id: 'S' },
    ]);
  });
});

/**
 * Issue 21, item 22. Redshift's LOCK "obtains a table-level lock in ACCESS EXCLUSIVE mode ... Explicitly locking a table
 * in this way causes reads and writes on the table to wait when they are attempted from other transactions or sessions"
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_LOCK.html); PostgreSQL's LOCK TABLE takes the same ACCESS
 * EXCLUSIVE mode by default, which blocks reads as well. Its statement_timeout counts the wait for a lock, as
 * Redshift's "includes planning, queueing in workload management (WLM), and execution time"
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_statement_timeout.html).
 */
describe('loads of one schema and their locks (the Redshift dialect on PostgreSQL)', () => {
  /** Holds the load of any batch whose files are under `held` inside its transaction (its locks taken) until released. */
  class HeldLoader implements StagedFileLoader {
    private readonly inner = stdinCopyLoader();
    private readonly gates = new Map<string, { entered: Promise<void>; enter: () => void; release: () => void; released: Promise<void> }>();

    hold(batchId: string): { entered: Promise<void>; release: () => void } {
      let enter = () => undefined as void;
      let release = () => undefined as void;
      const entered = new Promise<void>((resolve) => (enter = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      this.gates.set(`files/${batchId}/`, { entered, enter, release, released });
      return { entered, release };
    }

    async load(...args: Parameters<StagedFileLoader['load']>): Promise<number> {
      const gate = [...this.gates].find(([folder]) => args[3].manifestKey.startsWith(folder))?.[1];
      if (gate !== undefined) {
        gate.enter();
        await gate.released;
      }
      return this.inner.load(...args);
    }
  }

  const other: TableDefinition = { ...items, table: { schema: 'public', name: 'others' } };
  const otherChanges = (from: number, to: number): BatchDescriptor => ({ ...changes(from, to), batchId: `others:changes:${from}:${to}`, definition: other });

  function loaderWith(fileLoader: StagedFileLoader, bounds: { statementTimeoutMs: number; lockWaitMs?: number }): WarehouseConnector {
    return redshiftOnPostgres(database.url, { ...bounds, fileLoader });
  }

  it("a long load of one table neither blocks another table's load nor its reads", async () => {
    const held = new HeldLoader();
    const loader = loaderWith(held, { statementTimeoutMs: 2_000 });
    try {
      const where = options('Type1');
      await loader.ensureTable(items, where);
      await loader.ensureTable(other, where);
      const long = changes(1, 2);
      const gate = held.hold(long.batchId);
      const longLoad = loader.loadBatch(long, stage(long, `"I","1","slow",\\N,\\N\n`), parts, where);
      await gate.entered;
      try {
        // While the load of items holds its locks (a seed merge that takes minutes, say):
        const started = Date.now();
        const quick = otherChanges(1, 2);
        expect(await loader.loadBatch(quick, stage(quick, `"I","7","quick",\\N,\\N\n`), parts, where)).toEqual({ applied: true, rowCount: 1 });
        expect(await loader.isStale(otherChanges(2, 3), where)).toBe(false);
        expect(await loader.hasLoaded(quick.batchId, where)).toBe(true);
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        gate.release();
      }
      expect(await longLoad).toEqual({ applied: true, rowCount: 1 });
    } finally {
      await loader.close();
    }
  });

  it("the next load of the same table waits for the lock beyond the statement timeout, then loads", async () => {
    const held = new HeldLoader();
    const loader = loaderWith(held, { statementTimeoutMs: 1_000, lockWaitMs: 20_000 });
    try {
      const where = options('Type1');
      await loader.ensureTable(items, where);
      const first = changes(1, 2);
      const gate = held.hold(first.batchId);
      const firstLoad = loader.loadBatch(first, stage(first, `"I","1","first",\\N,\\N\n`), parts, where);
      await gate.entered;
      const second = changes(2, 3);
      const secondLoad = loader.loadBatch(second, stage(second, `"U","1","second",\\N,\\N\n`), parts, where);
      // The first load holds the table's lock for three statement timeouts.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      gate.release();
      expect(await firstLoad).toEqual({ applied: true, rowCount: 1 });
      expect(await secondLoad).toEqual({ applied: true, rowCount: 1 });
      expect(await rows(where, 'id, name')).toEqual([[1, 'second']]);
    } finally {
      await loader.close();
    }
  });

  it("a group of change batches takes every table's lock before its snapshot: it reads what a load it waited for committed", async () => {
    const held = new HeldLoader();
    const loader = loaderWith(held, { statementTimeoutMs: 2_000 });
    try {
      const where = options('Type1');
      await loader.ensureTable(items, where);
      await loader.ensureTable(other, where);
      // A load of `others`, the table the group locks second, holds its lock; the group's first lock is free.
      const first = otherChanges(1, 2);
      const gate = held.hold(first.batchId);
      const firstLoad = loader.loadBatch(first, stage(first, `"I","7","first",\\N,\\N\n`), parts, where);
      await gate.entered;
      const [mine, theirs] = [changes(1, 2), otherChanges(2, 3)];
      const group = loader.loadChangeGroup(
        [
          { batch: theirs, files: stage(theirs, `"U","7","grouped",\\N,\\N\n`) },
          { batch: mine, files: stage(mine, `"I","1","grouped",\\N,\\N\n`) },
        ],
        parts,
        where,
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      gate.release();
      expect(await firstLoad).toEqual({ applied: true, rowCount: 1 });
      // A snapshot taken before the wait would miss row 7 and the fence of `others`: a second row 7, or error 1023.
      expect(await group).toEqual([
        { applied: true, rowCount: 1 },
        { applied: true, rowCount: 1 },
      ]);
      expect(await rows(where, 'id, name')).toEqual([[1, 'grouped']]);
      const others = await sql.query({ text: `SELECT id, name FROM ${where.schema}.others ORDER BY id`, rowMode: 'array' });
      expect(others.rows).toEqual([[7, 'grouped']]);
    } finally {
      await loader.close();
    }
  });
});

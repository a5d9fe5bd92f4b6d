import { Pool, type PoolClient } from 'pg';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { rebuildWithChanges, type TableRebuild } from './table-rebuild';

const ROWS = 3_000;
const REBUILD = { share: 0.3, minRows: 100 };

const items: TableRebuild = {
  qualifiedTable: 'public.items',
  keyColumns: ['id', 'part'],
  changesTable: 'pg_temp.changes',
  insertChangedRows: `INSERT INTO public.items (id, part, label) SELECT c.id, c.part, c.label FROM pg_temp.changes AS c WHERE c.op <> 'D'`,
  changesAlias: 'c',
};

/** The rows the merge path would leave: the batch's keys replaced (their other columns at their defaults), deletes gone. */
const EXPECTED_SQL = `SELECT id, part, label, note FROM (
  SELECT i.id, i.part, i.label, i.note FROM public.items_before AS i WHERE NOT EXISTS (SELECT 1 FROM pg_temp.changes AS c WHERE c.id = i.id AND c.part = i.part)
  UNION ALL SELECT c.id, c.part, c.label, 'kept' FROM pg_temp.changes AS c WHERE c.op <> 'D'
) AS merged ORDER BY id, part`;

interface ItemRow {
  id: number;
  part: string;
  label: string;
  note: string | null;
}

const KEY_SQL = `SELECT conname, pg_get_constraintdef(oid) AS definition, pg_get_indexdef(conindid) AS index
FROM pg_constraint WHERE conrelid = 'public.items'::regclass AND contype = 'p'`;

describe('rebuildWithChanges: a change batch that rewrites most of a table rebuilds it', () => {
  let database: TempDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTempDatabase('svc_table_rebuild');
    pool = new Pool({ connectionString: database.url, max: 4 });
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  beforeEach(async () => {
    await pool.query(`DROP TABLE IF EXISTS public.items, public.items_before, public.notes CASCADE;
      CREATE TABLE public.items (id int, part text, label text, note text DEFAULT 'kept', CONSTRAINT items_key PRIMARY KEY (id, part) WITH (fillfactor = 90));
      CREATE INDEX items_label ON public.items (label);
      INSERT INTO public.items (id, part, label) SELECT g, 'p' || (g % 3), 'v' || g FROM generate_series(1, ${ROWS}) AS g;
      CREATE TABLE public.items_before AS SELECT * FROM public.items;`);
  });

  /** In one transaction: the batch (updates of every other row, deletes of every seventh, 200 inserts) loaded, then `work`. */
  async function withBatch<T>(work: (client: PoolClient) => Promise<T>, commit = true): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE changes ON COMMIT DROP AS
        SELECT CASE WHEN id % 7 = 0 THEN 'D' ELSE 'U' END AS op, id, part, 'new ' || id AS label FROM public.items WHERE id % 2 = 0 OR id % 7 = 0
        UNION ALL SELECT 'I', g, 'p' || (g % 3), 'added ' || g FROM generate_series(${ROWS + 1}, ${ROWS + 200}) AS g`);
      const result = await work(client);
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  const changedRows = async (client: PoolClient): Promise<number> => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_temp.changes')).rows[0]?.n);
  const fileNode = async (): Promise<number> => Number((await pool.query<{ node: number }>(`SELECT relfilenode AS node FROM pg_class WHERE oid = 'public.items'::regclass`)).rows[0]?.node);

  it('leaves exactly the rows delete + insert would, the untouched ones with their values, and the key and indexes as they were', async () => {
    const keyBefore = (await pool.query(KEY_SQL)).rows;
    const nodeBefore = await fileNode();
    const { rebuilt, expected, actual } = await withBatch(async (client) => {
      const count = await changedRows(client);
      const expectedRows = (await client.query(EXPECTED_SQL)).rows;
      const done = await rebuildWithChanges(client, items, count, REBUILD);
      const after = (await client.query<ItemRow>('SELECT id, part, label, note FROM public.items ORDER BY id, part')).rows;
      return { rebuilt: done, expected: expectedRows, actual: after };
    });
    expect(rebuilt).toBe(true);
    expect(actual).toEqual(expected);
    expect(actual.length).toBe(ROWS - Math.floor(ROWS / 7) + 200);
    // Untouched rows keep what only the table had (the batch does not carry `note`).
    expect(actual.find((row) => row.id === 1)).toEqual({ id: 1, part: 'p1', label: 'v1', note: 'kept' });
    expect(await fileNode()).not.toBe(nodeBefore);
    const keyAfter = (await pool.query(KEY_SQL)).rows;
    expect(keyAfter).toEqual(keyBefore);
    expect(keyAfter[0]).toEqual({
      conname: 'items_key',
      definition: 'PRIMARY KEY (id, part)',
      index: 'CREATE UNIQUE INDEX items_key ON public.items USING btree (id, part) WITH (fillfactor=\'90\')',
    });
    const indexes = await pool.query(`SELECT indexrelid::regclass::text AS name, indisvalid FROM pg_index WHERE indrelid = 'public.items'::regclass ORDER BY 1`);
    expect(indexes.rows).toEqual([
      { name: 'items_key', indisvalid: true },
      { name: 'items_label', indisvalid: true },
    ]);
    await expect(pool.query(`INSERT INTO public.items (id, part) VALUES (2, 'p2')`)).rejects.toThrow(/duplicate key/);
  });

  it('changes nothing when the batch is under the share or under the minimum of rows', async () => {
    const nodeBefore = await fileNode();
    await withBatch(async (client) => {
      const count = await changedRows(client);
      expect(await rebuildWithChanges(client, items, count, { share: 0.9, minRows: 1 })).toBe(false);
      expect(await rebuildWithChanges(client, items, count, { share: 0.3, minRows: count + 1 })).toBe(false);
      expect(await rebuildWithChanges(client, items, count, { share: 0, minRows: 1 })).toBe(false);
    });
    expect(await fileNode()).toBe(nodeBefore);
  });

  it('gives up, changing nothing, when a reader holds the table past the lock timeout', async () => {
    const reader = await pool.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM public.items');
      const rebuilt = await withBatch(async (client) => {
        const done = await rebuildWithChanges(client, items, await changedRows(client), REBUILD);
        // The transaction is usable afterwards: the caller merges in it.
        expect((await client.query('SELECT count(*)::int AS n FROM public.items')).rows[0]).toEqual({ n: ROWS });
        return done;
      });
      expect(rebuilt).toBe(false);
    } finally {
      await reader.query('ROLLBACK');
      reader.release();
    }
  }, 15_000);

  it('leaves a table with triggers of its own to the merge (they would fire for every row put back)', async () => {
    await pool.query(`CREATE FUNCTION public.noted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER audit BEFORE INSERT ON public.items FOR EACH ROW EXECUTE FUNCTION public.noted()`);
    try {
      const nodeBefore = await fileNode();
      expect(await withBatch(async (client) => rebuildWithChanges(client, items, await changedRows(client), REBUILD))).toBe(false);
      expect(await fileNode()).toBe(nodeBefore);
    } finally {
      await pool.query('DROP TRIGGER audit ON public.items; DROP FUNCTION public.noted()');
    }
  });

  it("gives up when another table's foreign key forbids TRUNCATE", async () => {
    await pool.query(`CREATE TABLE public.notes (id int, part text, FOREIGN KEY (id, part) REFERENCES public.items (id, part))`);
    const rebuilt = await withBatch(async (client) => rebuildWithChanges(client, items, await changedRows(client), REBUILD));
    expect(rebuilt).toBe(false);
  });

  it('keeps the key in place (inserting in key order) when the replica identity is that index', async () => {
    await pool.query('ALTER TABLE public.items REPLICA IDENTITY USING INDEX items_key');
    const { rebuilt, expected, actual } = await withBatch(async (client) => {
      const expectedRows = (await client.query(EXPECTED_SQL)).rows;
      const done = await rebuildWithChanges(client, items, await changedRows(client), REBUILD);
      return { rebuilt: done, expected: expectedRows, actual: (await client.query('SELECT id, part, label, note FROM public.items ORDER BY id, part')).rows };
    });
    expect(rebuilt).toBe(true);
    expect(actual).toEqual(expected);
    const identity = await pool.query(`SELECT c.relreplident, i.indisreplident FROM pg_class AS c JOIN pg_index AS i ON i.indrelid = c.oid WHERE c.oid = 'public.items'::regclass AND i.indisprimary`);
    expect(identity.rows).toEqual([{ relreplident: 'i', indisreplident: true }]);
  });

  it("keeps the key in place when a view relies on it (grouped by the key), and still rebuilds", async () => {
    await pool.query('CREATE VIEW public.labels AS SELECT id, part, label FROM public.items GROUP BY id, part');
    const indexBefore = (await pool.query(`SELECT conindid::int AS index FROM pg_constraint WHERE conrelid = 'public.items'::regclass AND contype = 'p'`)).rows;
    const { rebuilt, expected, actual } = await withBatch(async (client) => {
      const expectedRows = (await client.query(EXPECTED_SQL)).rows;
      const done = await rebuildWithChanges(client, items, await changedRows(client), REBUILD);
      return { rebuilt: done, expected: expectedRows, actual: (await client.query('SELECT id, part, label, note FROM public.items ORDER BY id, part')).rows };
    });
    expect(rebuilt).toBe(true);
    expect(actual).toEqual(expected);
    expect((await pool.query(`SELECT conindid::int AS index FROM pg_constraint WHERE conrelid = 'public.items'::regclass AND contype = 'p'`)).rows).toEqual(indexBefore);
    expect((await pool.query('SELECT count(*)::int AS n FROM public.labels')).rows[0]).toEqual({ n: expected.length });
    await pool.query('DROP VIEW public.labels');
  });

  it('rebuilds a second table in the same transaction, as a group of change batches does', async () => {
    await pool.query('CREATE TABLE public.items_copy (LIKE public.items INCLUDING ALL); INSERT INTO public.items_copy SELECT * FROM public.items');
    try {
      const copy: TableRebuild = { ...items, qualifiedTable: 'public.items_copy', insertChangedRows: items.insertChangedRows.replace('public.items', 'public.items_copy') };
      const { rebuilt, expected, actual } = await withBatch(async (client) => {
        const count = await changedRows(client);
        const expectedRows = (await client.query(EXPECTED_SQL)).rows;
        const done = [await rebuildWithChanges(client, items, count, REBUILD), await rebuildWithChanges(client, copy, count, REBUILD)];
        const rows = async (table: string) => (await client.query<ItemRow>(`SELECT id, part, label, note FROM ${table} ORDER BY id, part`)).rows;
        return { rebuilt: done, expected: expectedRows, actual: [await rows('public.items'), await rows('public.items_copy')] };
      });
      expect(rebuilt).toEqual([true, true]);
      expect(actual).toEqual([expected, expected]);
    } finally {
      await pool.query('DROP TABLE public.items_copy');
    }
  });

  it('is undone with the transaction that rebuilt', async () => {
    await withBatch(async (client) => rebuildWithChanges(client, items, await changedRows(client), REBUILD), false);
    expect((await pool.query('SELECT count(*)::int AS n, count(*) FILTER (WHERE label LIKE $1)::int AS changed FROM public.items', ['new %'])).rows[0]).toEqual({ n: ROWS, changed: 0 });
  });
});

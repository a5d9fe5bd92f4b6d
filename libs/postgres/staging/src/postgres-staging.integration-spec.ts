import type { BatchDescriptor, ChangeBatch, ColumnDefinition, SeedBatch, TableDefinition } from '@svc/contracts';
import type { CsvChunks, StagingConnector } from '@svc/engines';
import { createTempDatabase, scrambledKeys, type TempDatabase } from '@svc/testing';
import { portableTypeOfPostgres, postgresColumnType } from '@svc/postgres/common';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { createPostgresStaging } from './postgres-staging';

const REPLICATION_ID = '6f1c2a9e-0b5d-4c3e-9a7f-2d8e4b1c0a55';

/** The acceptance list of types; the enum columns are `text` / `text[]` in staging. */
const ALL_TYPES_SOURCE_DDL = `
CREATE TYPE app.mood AS ENUM ('sad', 'ok', 'happy 😀');
CREATE TABLE app.all_types (
  id integer PRIMARY KEY,
  label text,
  empty_text text,
  big text,
  amount numeric(38,10),
  at timestamptz,
  raw bytea,
  uid uuid,
  doc jsonb,
  tags text[],
  nums integer[],
  feeling app.mood,
  feelings app.mood[]
)`;

const ALL_TYPES_ROWS = `
INSERT INTO app.all_types VALUES
  (1, E'multi\\nline "quoted", comma;\\r\\n🦄', '', repeat('é😀x', 262144), 1234567890123456789012345678.0123456789,
   '2024-02-29 23:59:59.123456+05:30', '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
   '{"a": [1, 2, {"b": null}], "emoji": "🦄", "quote": "\\""}', ARRAY['a', 'b c', '', NULL, 'd"e', '{x}'], '{1,2,3}', 'happy 😀', '{sad,"happy 😀"}'),
  (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, 'NULL', '""', 'x', -0.0000000001, '1970-01-01 00:00:00+00', '\\x', '00000000-0000-0000-0000-000000000000',
   '[]', '{}', '{-1,NULL}', 'sad', '{}')`;

function column(name: string, sourceType: string, portableType = sourceType, nullable = true): ColumnDefinition {
  return { name, sourceType, portableType: portableTypeOfPostgres(portableType), nullable };
}

const allTypes: TableDefinition = {
  table: { schema: 'app', name: 'all_types' },
  columns: [
    column('id', 'integer', 'integer', false),
    column('label', 'text'),
    column('empty_text', 'text'),
    column('big', 'text'),
    column('amount', 'numeric(38,10)'),
    column('at', 'timestamp with time zone'),
    column('raw', 'bytea'),
    column('uid', 'uuid'),
    column('doc', 'jsonb'),
    column('tags', 'text[]'),
    column('nums', 'integer[]'),
    column('feeling', 'app.mood', 'text'),
    column('feelings', 'app.mood[]', 'text[]'),
  ],
  primaryKey: ['id'],
  estimatedRows: 3,
};

/** A table whose key is two columns, one of them named to need quoting. */
const people: TableDefinition = {
  table: { schema: 'Crm "Data"', name: 'People' },
  columns: [column('Region', 'text', 'text', false), column('id', 'integer', 'integer', false), column('name', 'text', 'text', false)],
  primaryKey: ['Region', 'id'],
  estimatedRows: 0,
};

const noKey: TableDefinition = {
  table: { schema: 'public', name: 'log' },
  columns: [column('line', 'text')],
  primaryKey: [],
  estimatedRows: 0,
};

function seedBatch(definition: TableDefinition, seed: Omit<SeedBatch, 'kind' | 'startVersion'>, batchId?: string, epoch = 1): BatchDescriptor {
  return {
    batchId: batchId ?? `seed:${seed.seedId}:${seed.part}`,
    replicationId: REPLICATION_ID,
    epoch,
    definition,
    body: { kind: 'seed', startVersion: '100', ...seed },
  };
}

function changeBatch(definition: TableDefinition, fromVersion: string, toVersion: string, epoch = 1): BatchDescriptor {
  const body: ChangeBatch = { kind: 'changes', fromVersion, toVersion };
  return { batchId: `changes:${fromVersion}-${toVersion}`, replicationId: REPLICATION_ID, epoch, definition, body };
}

/** The bytes in small chunks that split rows (and multi-byte characters), recording how far they were read. */
function chunked(csv: string | Buffer, chunkSize = 7): CsvChunks & { bytesRead: () => number; total: number } {
  const bytes = typeof csv === 'string' ? Buffer.from(csv, 'utf8') : csv;
  let read = 0;
  return {
    total: bytes.length,
    bytesRead: () => read,
    async *[Symbol.asyncIterator]() {
      for (let offset = 0; offset < bytes.length; offset += chunkSize) {
        const chunk = bytes.subarray(offset, offset + chunkSize);
        read += chunk.length;
        yield chunk;
      }
    },
  };
}

async function copyOut(url: string, query: string): Promise<Buffer> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const parts: Buffer[] = [];
    for await (const part of client.query(copyTo(`COPY (${query}) TO STDOUT (FORMAT csv)`))) parts.push(part as Buffer);
    return Buffer.concat(parts);
  } finally {
    await client.end();
  }
}

/** As text: jest compares strings at once but buffers element by element. */
async function copyOutText(url: string, query: string): Promise<string> {
  return (await copyOut(url, query)).toString('utf8');
}

async function sql<T extends Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL staging', () => {
  let source: TempDatabase;
  let stagingDb: TempDatabase;
  let staging: StagingConnector;

  const peopleRows = (): Promise<string> => copyOutText(stagingDb.url, 'SELECT * FROM "Crm ""Data"""."People" ORDER BY "Region", id');

  beforeAll(async () => {
    source = await createTempDatabase('stg_src');
    await sql(source.url, 'CREATE SCHEMA app');
    await sql(source.url, ALL_TYPES_SOURCE_DDL);
    await sql(source.url, ALL_TYPES_ROWS);
  });

  afterAll(async () => {
    await source.drop();
  });

  beforeEach(async () => {
    stagingDb = await createTempDatabase('stg');
    staging = createPostgresStaging(stagingDb.url, { encrypt: false });
  });

  afterEach(async () => {
    await staging.close();
    await stagingDb.drop();
  });

  describe('ensureTable', () => {
    it('creates schema and table with the portable types, NOT NULL as in the source and the primary key', async () => {
      expect(await staging.ensureTable(allTypes)).toEqual({ created: true, addedColumns: [] });
      expect(await staging.ensureTable(people)).toEqual({ created: true, addedColumns: [] });

      const columns = await sql<{ name: string; type: string; not_null: boolean }>(
        stagingDb.url,
        `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null
         FROM pg_attribute WHERE attrelid = 'app.all_types'::regclass AND attnum > 0 ORDER BY attnum`,
      );
      expect(columns).toEqual(allTypes.columns.map((c) => ({ name: c.name, type: postgresColumnType(c.portableType).type, not_null: !c.nullable })));
      const keys = await sql<{ table: string; key: string }>(
        stagingDb.url,
        `SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS key FROM pg_constraint WHERE contype = 'p' AND connamespace NOT IN ('pg_catalog'::regnamespace, 'svc_staging'::regnamespace) ORDER BY 1`,
      );
      expect(keys).toEqual([
        { table: '"Crm ""Data"""."People"', key: 'PRIMARY KEY ("Region", id)' },
        { table: 'app.all_types', key: 'PRIMARY KEY (id)' },
      ]);
    });

    it('creates a table without a primary key', async () => {
      expect(await staging.ensureTable(noKey)).toEqual({ created: true, addedColumns: [] });
      expect(await sql(stagingDb.url, `SELECT 1 FROM pg_constraint WHERE conrelid = 'public.log'::regclass`)).toEqual([]);
    });

    it('adds the columns a table lacks, nullable, and nothing the second time', async () => {
      await staging.ensureTable(people);
      await staging.applyBatch(seedBatch(people, { seedId: 's1', part: 0, final: true }), chunked('eu,1,Ann\n'));
      const evolved: TableDefinition = {
        ...people,
        columns: [...people.columns, column('Born On', 'date', 'date', false), column('score', 'numeric(5,2)')],
      };

      expect(await staging.ensureTable(evolved)).toEqual({ created: false, addedColumns: ['Born On', 'score'] });
      expect(await staging.ensureTable(evolved)).toEqual({ created: false, addedColumns: [] });
      expect(await staging.ensureTable(people)).toEqual({ created: false, addedColumns: [] });

      const added = await sql<{ name: string; type: string; not_null: boolean }>(
        stagingDb.url,
        `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS not_null FROM pg_attribute
         WHERE attrelid = '"Crm ""Data"""."People"'::regclass AND attnum > 3 ORDER BY attnum`,
      );
      expect(added).toEqual([
        { name: 'Born On', type: 'date', not_null: false },
        { name: 'score', type: 'numeric(5,2)', not_null: false },
      ]);

      // Rows of the evolved definition carry the new columns.
      await staging.applyBatch(changeBatch(evolved, '1', '2'), chunked('I,eu,2,Bob,2001-02-03,9.5\n'));
      expect(await peopleRows()).toBe('eu,1,Ann,,\neu,2,Bob,2001-02-03,9.50\n');
    });

    it('is safe to run concurrently for tables of one new schema', async () => {
      const tables = ['a', 'b', 'c', 'd'].map((name): TableDefinition => ({ ...noKey, table: { schema: 'fresh', name } }));
      const results = await Promise.all(tables.map((table) => staging.ensureTable(table)));
      expect(results.every((result) => result.created)).toBe(true);
    });
  });

  describe('existingColumns', () => {
    it('is null for a table (or schema) that does not exist', async () => {
      expect(await staging.existingColumns(people.table)).toBeNull();
      await staging.ensureTable(noKey);
      expect(await staging.existingColumns({ schema: 'public', name: 'People' })).toBeNull();
    });

    it('lists the columns in ordinal order, added ones included and dropped ones left out', async () => {
      await staging.ensureTable(people);
      expect(await staging.existingColumns(people.table)).toEqual(['Region', 'id', 'name']);
      await staging.ensureTable({ ...people, columns: [...people.columns, column('Born On', 'date')] });
      await sql(stagingDb.url, 'ALTER TABLE "Crm ""Data"""."People" DROP COLUMN name');
      expect(await staging.existingColumns(people.table)).toEqual(['Region', 'id', 'Born On']);
    });
  });

  describe('seed parts', () => {
    it('round-trips every type of the acceptance list: COPY out of staging equals COPY out of the source', async () => {
      await staging.ensureTable(allTypes);
      const input = await copyOut(source.url, 'SELECT * FROM app.all_types ORDER BY id');
      expect(input.length).toBeGreaterThan(1024 * 1024);
      expect(input.toString('utf8')).toContain('😀');

      const outcome = await staging.applyBatch(seedBatch(allTypes, { seedId: 's1', part: 0, final: true }), chunked(input, 4093));

      expect(outcome).toEqual({ applied: true, rowCount: 3 });
      expect(await copyOutText(stagingDb.url, 'SELECT * FROM app.all_types ORDER BY id')).toBe(input.toString('utf8'));
    });

    it('part 0 empties the table, later parts add to it, a part of an abandoned seed changes nothing', async () => {
      await staging.ensureTable(people);
      await staging.applyBatch(seedBatch(people, { seedId: 'old', part: 0, final: false }), chunked('eu,1,Old Ann\neu,9,Old Zed\n'));

      expect(await staging.applyBatch(seedBatch(people, { seedId: 'new', part: 0, final: false }), chunked('eu,1,Ann\n'))).toEqual({
        applied: true,
        rowCount: 1,
      });
      expect(await peopleRows()).toBe('eu,1,Ann\n');

      const stale = chunked('eu,9,Old Zed again\n');
      expect(await staging.applyBatch(seedBatch(people, { seedId: 'old', part: 1, final: true }), stale)).toEqual({ applied: false, rowCount: 0 });
      expect(stale.bytesRead()).toBe(stale.total);
      expect(await peopleRows()).toBe('eu,1,Ann\n');

      expect(await staging.applyBatch(seedBatch(people, { seedId: 'new', part: 1, final: true }), chunked('us,1,"Bo, ""B"""\n'))).toEqual({
        applied: true,
        rowCount: 1,
      });
      expect(await peopleRows()).toBe('eu,1,Ann\nus,1,"Bo, ""B"""\n');
    });

    it('treats a later part as stale when no seed of the table has started', async () => {
      await staging.ensureTable(people);
      expect(await staging.applyBatch(seedBatch(people, { seedId: 's', part: 1, final: true }), chunked('eu,1,Ann\n'))).toEqual({
        applied: false,
        rowCount: 0,
      });
      expect(await peopleRows()).toBe('');
    });

    it('seeds a table without a primary key, duplicates and all, and reseeds it from scratch', async () => {
      await staging.ensureTable(noKey);
      await staging.applyBatch(seedBatch(noKey, { seedId: 'a', part: 0, final: true }), chunked('x\nx\n\n""\n'));
      expect(await copyOutText(stagingDb.url, 'SELECT line FROM public.log')).toBe('x\nx\n\n""\n');

      await staging.applyBatch(seedBatch(noKey, { seedId: 'b', part: 0, final: true }), chunked('y\n'));
      expect(await copyOutText(stagingDb.url, 'SELECT line FROM public.log')).toBe('y\n');
    });

    it('applies an empty part', async () => {
      await staging.ensureTable(people);
      expect(await staging.applyBatch(seedBatch(people, { seedId: 's', part: 0, final: true }), chunked(''))).toEqual({ applied: true, rowCount: 0 });
    });
  });

  describe('change batches', () => {
    beforeEach(async () => {
      await staging.ensureTable(people);
      await staging.applyBatch(seedBatch(people, { seedId: 's', part: 0, final: true }), chunked('eu,1,Ann\neu,2,Bob\neu,3,Cid\nus,1,Dan\n'));
    });

    it('applies updates, deletes, inserts and primary-key updates (delete of the old key, insert of the new) at once', async () => {
      const changes = [
        'U,eu,1,Ann Updated', // update
        'D,eu,2,', // delete: only the key is meaningful
        'D,eu,3,', // primary-key update eu/3 → us/3 ...
        'I,us,3,Cid', // ... arrives as delete + insert
        'I,us,2,"New, ""quoted""\nname"', // insert with a quoted newline
        'I,us,1,Dan again', // an insert of a key already present replaces the row
      ].join('\n');

      expect(await staging.applyBatch(changeBatch(people, '100', '200'), chunked(`${changes}\n`, 3))).toEqual({ applied: true, rowCount: 6 });
      expect(await peopleRows()).toBe('eu,1,Ann Updated\nus,1,Dan again\nus,2,"New, ""quoted""\nname"\nus,3,Cid\n');
    });

    it('puts the rows of a batch into the table in key order, whatever order they arrive in (the key index is filled page by page)', async () => {
      const ids = scrambledKeys(2000);
      await staging.applyBatch(changeBatch(people, '100', '200'), chunked(ids.map((id) => `I,zz,${id},n${id}\n`).join(''), 4096));
      const inHeapOrder = await sql<{ id: number }>(stagingDb.url, `SELECT id FROM "Crm ""Data"""."People" WHERE "Region" = 'zz' ORDER BY ctid`);
      expect(inHeapOrder.map((row) => row.id)).toEqual([...ids].sort((a, b) => a - b));
    });

    it('re-inserts a key deleted by an earlier batch', async () => {
      await staging.applyBatch(changeBatch(people, '100', '200'), chunked('D,eu,1,\n'));
      expect(await peopleRows()).not.toContain('eu,1,');
      await staging.applyBatch(changeBatch(people, '200', '300'), chunked('I,eu,1,Ann Returns\n'));
      expect(await peopleRows()).toBe('eu,1,Ann Returns\neu,2,Bob\neu,3,Cid\nus,1,Dan\n');
    });

    it('round-trips every type as update rows', async () => {
      await staging.ensureTable(allTypes);
      await staging.applyBatch(seedBatch(allTypes, { seedId: 't', part: 0, final: true }), chunked('1,,,,,,,,,,,,\n2,,,,,,,,,,,,\n'));
      const changes = await copyOut(source.url, `SELECT CASE WHEN id = 3 THEN 'I' ELSE 'U' END, * FROM app.all_types ORDER BY id`);

      expect(await staging.applyBatch(changeBatch(allTypes, '1', '2'), chunked(changes, 65536))).toEqual({ applied: true, rowCount: 3 });
      expect(await copyOutText(stagingDb.url, 'SELECT * FROM app.all_types ORDER BY id')).toBe(
        await copyOutText(source.url, 'SELECT * FROM app.all_types ORDER BY id'),
      );
    });

    it('rebuilds the table for a batch that changes a large share of it (its file new, its key kept), leaving the rows a merge leaves', async () => {
      const peopleTable = `'"Crm ""Data"""."People"'::regclass`;
      const fileNode = async (): Promise<number> => (await sql<{ node: number }>(stagingDb.url, `SELECT relfilenode AS node FROM pg_class WHERE oid = ${peopleTable}`))[0].node;
      const rebuilding = createPostgresStaging(stagingDb.url, { encrypt: false, rebuild: { share: 0.5, minRows: 1 } });
      try {
        const before = await fileNode();
        const changes = 'U,eu,1,Ann Updated\nD,eu,2,\nD,eu,3,\nI,us,3,Cid\nI,us,1,Dan again\n';
        expect(await rebuilding.applyBatch(changeBatch(people, '100', '200'), chunked(changes, 5))).toEqual({ applied: true, rowCount: 5 });
        expect(await peopleRows()).toBe('eu,1,Ann Updated\nus,1,Dan again\nus,3,Cid\n');
        expect(await fileNode()).not.toBe(before);
        const key = await sql(stagingDb.url, `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = ${peopleTable} AND contype = 'p'`);
        expect(key).toEqual([{ definition: 'PRIMARY KEY ("Region", id)' }]);

        // One change in a table of three rows is under half of it: merged, the table's file the same.
        const merged = await fileNode();
        await rebuilding.applyBatch(changeBatch(people, '200', '300'), chunked('I,eu,9,Eve\n'));
        expect(await fileNode()).toBe(merged);
        expect(await peopleRows()).toBe('eu,1,Ann Updated\neu,9,Eve\nus,1,Dan again\nus,3,Cid\n');
      } finally {
        await rebuilding.close();
      }
    });

    it('round-trips every type through a rebuild', async () => {
      const rebuilding = createPostgresStaging(stagingDb.url, { encrypt: false, rebuild: { share: 0.3, minRows: 1 } });
      try {
        await rebuilding.ensureTable(allTypes);
        await rebuilding.applyBatch(seedBatch(allTypes, { seedId: 't', part: 0, final: true }), chunked('1,,,,,,,,,,,,\n2,,,,,,,,,,,,\n4,,,,,,,,,,,,\n'));
        const changes = await copyOut(source.url, `SELECT CASE WHEN id = 3 THEN 'I' ELSE 'U' END, * FROM app.all_types ORDER BY id`);
        await rebuilding.applyBatch(changeBatch(allTypes, '1', '2'), chunked(changes, 65536));
        expect(await copyOutText(stagingDb.url, 'SELECT * FROM app.all_types WHERE id <> 4 ORDER BY id')).toBe(
          await copyOutText(source.url, 'SELECT * FROM app.all_types ORDER BY id'),
        );
        expect(await copyOutText(stagingDb.url, 'SELECT * FROM app.all_types WHERE id = 4')).toBe('4,,,,,,,,,,,,\n');
      } finally {
        await rebuilding.close();
      }
    });

    it('refuses changes for a table without a primary key, reading nothing', async () => {
      const rows = chunked('I,x\n');
      await expect(staging.applyBatch(changeBatch(noKey, '1', '2'), rows)).rejects.toThrow(/without a primary key/);
      expect(rows.bytesRead()).toBe(0);
    });
  });

  describe('idempotency and failures', () => {
    beforeEach(async () => {
      await staging.ensureTable(people);
    });

    it('applies a batch once: the second time is a no-op that still reads its input to the end', async () => {
      const batch = changeBatch(people, '1', '2');
      expect(await staging.applyBatch(batch, chunked('I,eu,1,Ann\n'))).toEqual({ applied: true, rowCount: 1 });

      const again = chunked('I,eu,1,Ann\nI,eu,2,Not Applied\n');
      expect(await staging.applyBatch(batch, again)).toEqual({ applied: false, rowCount: 0 });
      expect(again.bytesRead()).toBe(again.total);
      expect(await peopleRows()).toBe('eu,1,Ann\n');

      const seed = seedBatch(people, { seedId: 's', part: 0, final: true });
      expect(await staging.applyBatch(seed, chunked('us,5,Eve\n'))).toEqual({ applied: true, rowCount: 1 });
      await staging.applyBatch(changeBatch(people, '2', '3'), chunked('I,us,6,Fay\n'));
      // A redelivered part 0 must not empty the table again.
      expect(await staging.applyBatch(seed, chunked('us,5,Eve\n'))).toEqual({ applied: false, rowCount: 0 });
      expect(await peopleRows()).toBe('us,5,Eve\nus,6,Fay\n');
    });

    it('forgets batches applied before a cutoff, and only those', async () => {
      const old = changeBatch(people, '1', '2');
      const recent = changeBatch(people, '2', '3');
      await staging.applyBatch(old, chunked('I,eu,1,Ann\n'));
      await staging.applyBatch(recent, chunked('I,eu,2,Bo\n'));
      await sql(stagingDb.url, "UPDATE svc_staging.applied_batches SET applied_at = now() - interval '8 days' WHERE batch_id = $1", [old.batchId]);
      expect(await staging.forgetAppliedBatches(new Date(Date.now() - 7 * 24 * 60 * 60 * 1000))).toBe(1);
      expect(await staging.hasApplied(old.batchId)).toBe(false);
      expect(await staging.hasApplied(recent.batchId)).toBe(true);
      expect(await staging.forgetAppliedBatches(new Date(Date.now() - 7 * 24 * 60 * 60 * 1000))).toBe(0);
      expect(await peopleRows()).toBe('eu,1,Ann\neu,2,Bo\n');
    });

    it('applies one of two concurrent deliveries of a batch', async () => {
      const batch = changeBatch(people, '1', '2');
      const outcomes = await Promise.all([
        staging.applyBatch(batch, chunked('I,eu,1,Ann\n')),
        staging.applyBatch(batch, chunked('I,eu,1,Ann\n')),
      ]);
      expect(outcomes.map((outcome) => outcome.applied).sort()).toEqual([false, true]);
      expect(await peopleRows()).toBe('eu,1,Ann\n');
    });

    it('serialises different batches that touch the same keys (two replications sharing a staging database)', async () => {
      const rows = (label: string) => Array.from({ length: 2000 }, (_, key) => `U,eu,${key},${label}\n`).join('');
      for (let round = 0; round < 5; round++) {
        const first = { ...changeBatch(people, String(round), String(round + 1)), batchId: `replication-a:${round}` };
        const second = { ...changeBatch(people, String(round), String(round + 1)), batchId: `replication-b:${round}` };
        const outcomes = await Promise.all([staging.applyBatch(first, chunked(rows('A'))), staging.applyBatch(second, chunked(rows('B')))]);
        expect(outcomes.map((outcome) => outcome.applied)).toEqual([true, true]);
      }
      const [counts] = await sql<{ rows: number; keys: number }>(
        stagingDb.url,
        'SELECT count(*)::int AS rows, count(DISTINCT id)::int AS keys FROM "Crm ""Data"""."People"',
      );
      expect(counts).toEqual({ rows: 2000, keys: 2000 });
    });

    it('rolls back a batch whose rows fail, so that it can be applied later', async () => {
      await staging.applyBatch(seedBatch(people, { seedId: 's', part: 0, final: true }), chunked('eu,1,Ann\n'));
      const batch = changeBatch(people, '1', '2');

      await expect(staging.applyBatch(batch, chunked('D,eu,1,\nI,eu,not-a-number,Bob\n'))).rejects.toThrow(/invalid input syntax for type integer/);
      expect(await peopleRows()).toBe('eu,1,Ann\n');

      expect(await staging.applyBatch(batch, chunked('D,eu,1,\nI,eu,2,Bob\n'))).toEqual({ applied: true, rowCount: 2 });
      expect(await peopleRows()).toBe('eu,2,Bob\n');
    });

    it('rolls back when reading the rows fails midway', async () => {
      const failing: CsvChunks = {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from('eu,1,Ann\n');
          throw new Error('rows stream broke');
        },
      };
      const seed = seedBatch(people, { seedId: 's', part: 0, final: true });
      await expect(staging.applyBatch(seed, failing)).rejects.toThrow('rows stream broke');
      expect(await staging.applyBatch(seed, chunked('eu,2,Bob\n'))).toEqual({ applied: true, rowCount: 1 });
      expect(await peopleRows()).toBe('eu,2,Bob\n');
    });

    it('keeps working after a failed COPY (the connection goes back to the pool clean)', async () => {
      const small = createPostgresStaging(stagingDb.url, { encrypt: false, maxConnections: 1 });
      try {
        await expect(small.applyBatch(changeBatch(people, '1', '2'), chunked('X,,,\n'))).rejects.toThrow();
        expect(await small.applyBatch(changeBatch(people, '1', '2'), chunked('I,eu,1,Ann\n'))).toEqual({ applied: true, rowCount: 1 });
      } finally {
        await small.close();
      }
    });
  });
  describe('work epochs (fence against cancelled work)', () => {
    const STALE = { applied: false, rowCount: 0, stale: true };

    beforeEach(async () => {
      await staging.ensureTable(people);
      await staging.applyBatch(seedBatch(people, { seedId: 's', part: 0, final: true }), chunked('eu,1,Ann\neu,2,Bob\n'));
    });

    it('skips a change batch of an older unit after one of a newer unit: staging unchanged, none of its rows read', async () => {
      expect(await staging.applyBatch(changeBatch(people, '100', '200', 3), chunked('U,eu,1,Ann 3\n'))).toEqual({ applied: true, rowCount: 1 });

      const older = changeBatch(people, '100', '150', 2);
      const rows = chunked('D,eu,1,\nU,eu,2,Bob 2\n');
      expect(await staging.isStale(older)).toBe(true);
      expect(await staging.applyBatch(older, rows)).toEqual(STALE);
      expect(rows.bytesRead()).toBe(0);
      expect(await peopleRows()).toBe('eu,1,Ann 3\neu,2,Bob\n');
      expect(await staging.hasApplied(older.batchId)).toBe(false);
    });

    it('applies batches of the same epoch one after another', async () => {
      expect(await staging.applyBatch(changeBatch(people, '100', '200', 2), chunked('U,eu,1,Ann 2\n'))).toEqual({ applied: true, rowCount: 1 });
      const same = changeBatch(people, '200', '300', 2);
      expect(await staging.isStale(same)).toBe(false);
      expect(await staging.applyBatch(same, chunked('U,eu,2,Bob 2\n'))).toEqual({ applied: true, rowCount: 1 });
      expect(await peopleRows()).toBe('eu,1,Ann 2\neu,2,Bob 2\n');
    });

    it('applies a batch of a newer epoch after an older one, and fences the older epoch from then on', async () => {
      expect(await staging.applyBatch(changeBatch(people, '100', '200', 1), chunked('U,eu,1,Ann 1\n'))).toEqual({ applied: true, rowCount: 1 });
      expect(await staging.applyBatch(changeBatch(people, '100', '300', 5), chunked('U,eu,1,Ann 5\n'))).toEqual({ applied: true, rowCount: 1 });
      expect(await staging.applyBatch(changeBatch(people, '200', '300', 1), chunked('U,eu,1,Ann 1 again\n'))).toEqual(STALE);
      expect(await peopleRows()).toBe('eu,1,Ann 5\neu,2,Bob\n');
    });

    it('a seed of a newer epoch fences change batches and seed parts of older work', async () => {
      await staging.applyBatch(seedBatch(people, { seedId: 'old', part: 0, final: false }, undefined, 2), chunked('eu,7,Old Part 0\n'));
      expect(await staging.applyBatch(seedBatch(people, { seedId: 'new', part: 0, final: false }, undefined, 3), chunked('eu,1,New Ann\n'))).toEqual({
        applied: true,
        rowCount: 1,
      });

      expect(await staging.applyBatch(changeBatch(people, '100', '200', 2), chunked('I,eu,8,Old Change\n'))).toEqual(STALE);
      const oldPart = seedBatch(people, { seedId: 'old', part: 1, final: true }, undefined, 2);
      expect(await staging.isStale(oldPart)).toBe(true);
      expect(await staging.applyBatch(oldPart, chunked('eu,9,Old Part 1\n'))).toEqual(STALE);
      expect(await peopleRows()).toBe('eu,1,New Ann\n');

      expect(await staging.applyBatch(seedBatch(people, { seedId: 'new', part: 1, final: true }, undefined, 3), chunked('us,1,New Dan\n'))).toEqual({
        applied: true,
        rowCount: 1,
      });
      expect(await peopleRows()).toBe('eu,1,New Ann\nus,1,New Dan\n');
    });

    it('a batch applied before still raises the fence when a newer unit delivers it again', async () => {
      const batch = changeBatch(people, '100', '200', 1);
      await staging.applyBatch(batch, chunked('U,eu,1,Ann 1\n'));
      // The replacing unit read the same versions: same batch id, a higher epoch.
      const again = chunked('U,eu,1,Ann 1\n');
      expect(await staging.applyBatch({ ...batch, epoch: 2 }, again)).toEqual({ applied: false, rowCount: 0 });
      expect(again.bytesRead()).toBe(again.total);
      expect(await staging.applyBatch(changeBatch(people, '200', '300', 1), chunked('U,eu,2,Bob 1\n'))).toEqual(STALE);
      expect(await peopleRows()).toBe('eu,1,Ann 1\neu,2,Bob\n');
    });

    it('keeps one fence per replication: another replication sharing the table is not fenced by it', async () => {
      await staging.applyBatch(changeBatch(people, '100', '200', 9), chunked('U,eu,1,Ann 9\n'));
      const other = { ...changeBatch(people, '1', '2', 0), batchId: 'other-replication:1-2', replicationId: 'b2c7e0f4-3a61-4e0b-8d55-9f1a2c3d4e5f' };
      expect(await staging.isStale(other)).toBe(false);
      expect(await staging.applyBatch(other, chunked('U,eu,2,Bob 0\n'))).toEqual({ applied: true, rowCount: 1 });
      expect(await peopleRows()).toBe('eu,1,Ann 9\neu,2,Bob 0\n');
    });
  });
});

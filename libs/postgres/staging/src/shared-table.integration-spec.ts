import type { BatchDescriptor, ColumnDefinition, TableDefinition } from '@svc/contracts';
import type { CsvChunks, StagingConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { portableTypeOfPostgres } from '@svc/postgres/common';
import { Client } from 'pg';
import { createPostgresStaging } from './postgres-staging';

/*
 * Two replications of one source database may use one staging database (the registry does not forbid it, and
 * Delete keeps change tables another replication of the source still uses): both then write the same staging
 * table, each with its own seeds, epochs and batch log. Whatever order their batches interleave in, the table
 * ends equal to the source, and every batch of each replication counts as applied (its next seed part does not
 * wait for a predecessor staging never recorded).
 */

const A = '0a5e0c8e-4b8e-4f8a-9a51-1f7d6d3c0a01';
const B = '0b5e0c8e-4b8e-4f8a-9a51-1f7d6d3c0b02';

function column(name: string, type: string, nullable = true): ColumnDefinition {
  return { name, sourceType: type, portableType: portableTypeOfPostgres(type), nullable };
}

const keyed: TableDefinition = {
  table: { schema: 'sales', name: 'orders' },
  columns: [column('id', 'integer', false), column('v', 'text')],
  primaryKey: ['id'],
  estimatedRows: 0,
};

const keyless: TableDefinition = { ...keyed, table: { schema: 'sales', name: 'log' }, primaryKey: [] };

function chunks(text: string): CsvChunks {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(text, 'utf8');
    },
  };
}

interface Step {
  batch: BatchDescriptor;
  rows: string;
}

/** Part `part` of a replication's seed: the source's rows with keys `keys`, value `v<key>`. */
function seedPart(replicationId: string, definition: TableDefinition, seedId: string, part: number, final: boolean, keys: number[]): Step {
  return {
    batch: {
      batchId: `${replicationId}/${definition.table.name}/seed/${seedId}/${part}`,
      replicationId,
      epoch: 1,
      definition,
      body: { kind: 'seed', seedId, part, final, startVersion: '10' },
    },
    rows: keys.map((key) => `${key},v${key}\n`).join(''),
  };
}

/** A change batch: `U` rows carry the source's current row, `D` rows only the key. */
function changes(replicationId: string, versions: string, rows: string): Step {
  return {
    batch: { batchId: `${replicationId}/orders/changes/${versions}`, replicationId, epoch: 2, definition: keyed, body: { kind: 'changes', fromVersion: versions, toVersion: `${versions}+` } },
    rows,
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('PostgreSQL staging: one staging table shared by two replications', () => {
  let database: TempDatabase;
  let stagingOfA: StagingConnector;
  let stagingOfB: StagingConnector;

  beforeEach(async () => {
    database = await createTempDatabase('stg_shared');
    stagingOfA = createPostgresStaging(database.url, { encrypt: false });
    stagingOfB = createPostgresStaging(database.url, { encrypt: false });
  });

  afterEach(async () => {
    await Promise.all([stagingOfA.close(), stagingOfB.close()]);
    await database.drop();
  });

  /** As the stager does: the previous part must be recorded before a part is applied. */
  async function apply(staging: StagingConnector, { batch, rows }: Step): Promise<void> {
    const { body } = batch;
    if (body.kind === 'seed' && body.part > 0) {
      const previous = batch.batchId.replace(/\/\d+$/, `/${body.part - 1}`);
      expect({ previous, applied: await staging.hasApplied(previous) }).toEqual({ previous, applied: true });
    }
    expect(await staging.isStale(batch)).toBe(false);
    await staging.ensureTable(batch.definition);
    const outcome = await staging.applyBatch(batch, chunks(rows));
    expect(outcome.stale).toBeUndefined();
  }

  async function rowsOf(definition: TableDefinition): Promise<string[]> {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const result = await client.query<{ row: string }>(`SELECT id || ':' || v AS row FROM sales.${definition.table.name} ORDER BY id, v`);
      return result.rows.map((row) => row.row);
    } finally {
      await client.end();
    }
  }

  const sourceRows = (keys: number[]) => keys.map((key) => `${key}:v${key}`);

  it("keeps a replication's seed whole when another replication's seed starts in between and is abandoned", async () => {
    await apply(stagingOfA, seedPart(A, keyed, 'seed-a', 0, false, range(1, 3)));
    await apply(stagingOfA, seedPart(A, keyed, 'seed-a', 1, false, range(4, 6)));
    // B seeds the same table for the first time (or reseeds it), then its seed is abandoned (B deleted, or the table altered out).
    await apply(stagingOfB, seedPart(B, keyed, 'seed-b', 0, false, range(1, 3)));
    await apply(stagingOfA, seedPart(A, keyed, 'seed-a', 2, false, range(7, 9)));
    await apply(stagingOfA, seedPart(A, keyed, 'seed-a', 3, true, range(10, 12)));

    expect(await rowsOf(keyed)).toEqual(sourceRows(range(1, 12)));
  });

  it('ends equal to the source when both seeds interleave part by part', async () => {
    const partsOf = (replicationId: string, seedId: string) => [0, 1, 2].map((part) => seedPart(replicationId, keyed, seedId, part, part === 2, range(part * 3 + 1, part * 3 + 3)));
    const [a, b] = [partsOf(A, 'seed-a'), partsOf(B, 'seed-b')];
    for (const part of [0, 1, 2]) {
      await apply(stagingOfA, a[part]);
      await apply(stagingOfB, b[part]);
    }
    expect(await rowsOf(keyed)).toEqual(sourceRows(range(1, 9)));
  });

  it("merges a seed part over rows another replication's change batch already wrote", async () => {
    await apply(stagingOfA, seedPart(A, keyed, 'seed-a', 0, true, range(1, 6)));
    // B starts seeding; meanwhile A tracks changes: key 5 updated, key 2 deleted, key 7 inserted in the source.
    await apply(stagingOfB, seedPart(B, keyed, 'seed-b', 0, false, range(1, 3)));
    await apply(stagingOfA, changes(A, '10-20', 'U,5,v5\nD,2,\nI,7,v7\n'));
    // B's snapshot was taken before those changes: it still has key 2, and not yet key 7.
    await apply(stagingOfB, seedPart(B, keyed, 'seed-b', 1, true, range(4, 6)));
    // B's own change tracking (from its snapshot's version) then brings the same changes.
    await apply(stagingOfB, changes(B, '10-20', 'U,5,v5\nD,2,\nI,7,v7\n'));

    expect(await rowsOf(keyed)).toEqual(sourceRows([1, 3, 4, 5, 6, 7]));
  });

  it('keeps a keyless table to the newest seed, without duplicates, and never leaves a part unrecorded', async () => {
    await apply(stagingOfA, seedPart(A, keyless, 'seed-a', 0, false, range(1, 3)));
    await apply(stagingOfB, seedPart(B, keyless, 'seed-b', 0, false, range(1, 3)));
    await apply(stagingOfA, seedPart(A, keyless, 'seed-a', 1, true, range(4, 6)));
    await apply(stagingOfB, seedPart(B, keyless, 'seed-b', 1, true, range(4, 6)));

    expect(await rowsOf(keyless)).toEqual(sourceRows(range(1, 6)));
    // A's part 1 came after B's seed had emptied the table again: it adds nothing, but it is recorded.
    expect(await stagingOfA.hasApplied(seedPart(A, keyless, 'seed-a', 1, true, []).batch.batchId)).toBe(true);
  });

  it('upgrades the seed and fence records of an older version in place, keeping a seed in flight', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      // The control tables as an older stager made them: one seed record per table, fences without a time.
      await client.query(`CREATE SCHEMA svc_staging;
CREATE TABLE svc_staging.applied_batches (batch_id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE svc_staging.table_seeds (schema text NOT NULL, name text NOT NULL, seed_id text NOT NULL, started_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (schema, name));
CREATE TABLE svc_staging.table_fences (replication_id text NOT NULL, schema text NOT NULL, name text NOT NULL, epoch bigint NOT NULL, PRIMARY KEY (replication_id, schema, name));
CREATE SCHEMA sales;
CREATE TABLE sales.orders (id integer NOT NULL, v text, PRIMARY KEY (id));
INSERT INTO sales.orders VALUES (1, 'v1'), (2, 'v2'), (3, 'v3');
INSERT INTO svc_staging.table_seeds (schema, name, seed_id) VALUES ('sales', 'orders', 'seed-a');
INSERT INTO svc_staging.table_fences VALUES ('${A}', 'sales', 'orders', 1);
INSERT INTO svc_staging.applied_batches (batch_id) VALUES ('${A}/orders/seed/seed-a/0')`);

      await apply(stagingOfA, seedPart(A, keyed, 'seed-a', 1, true, range(4, 6)));
      await apply(stagingOfB, seedPart(B, keyed, 'seed-b', 0, true, range(1, 6)));
      expect(await rowsOf(keyed)).toEqual(sourceRows(range(1, 6)));

      const keys = await client.query<{ table_name: string; columns: string }>(
        `SELECT conrelid::regclass::text AS table_name, pg_get_constraintdef(oid) AS columns FROM pg_constraint
WHERE conrelid IN ('svc_staging.table_seeds'::regclass, 'svc_staging.table_fences'::regclass) AND contype = 'p' ORDER BY 1`,
      );
      expect(keys.rows).toEqual([
        { table_name: 'svc_staging.table_fences', columns: 'PRIMARY KEY (replication_id, schema, name)' },
        { table_name: 'svc_staging.table_seeds', columns: 'PRIMARY KEY (replication_id, schema, name)' },
      ]);
    } finally {
      await client.end();
    }
  });
});

import type { BatchDescriptor, ColumnDefinition, TableDefinition } from '@svc/contracts';
import type { CsvChunks, StagingConnector } from '@svc/engines';
import { createTempDatabase, waitForLockWaiters, type TempDatabase } from '@svc/testing';
import { portableTypeOfPostgres } from '@svc/postgres/common';
import { Client } from 'pg';
import { createPostgresStaging } from './postgres-staging';

function column(name: string, type: string, nullable = true): ColumnDefinition {
  return { name, sourceType: type, portableType: portableTypeOfPostgres(type), nullable };
}

function chunks(text: string): CsvChunks {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(text, 'utf8');
    },
  };
}

/** The definition a replication has of a shared table at a step: from step 6 on, each has added a column of its own. */
function definitionAt(name: string, replication: string, step: number): TableDefinition {
  const own = step >= 6 ? [column(`c_${replication}`, 'integer')] : [];
  return { table: { schema: 'shared', name }, columns: [column('id', 'integer', false), column('v', 'text'), ...own], primaryKey: ['id'], estimatedRows: 0 };
}

/** Seed parts 0 and 1, then change batches that touch one range of keys, in opposite orders for odd and even replications. */
function batchAt(name: string, replicationIndex: number, step: number): { batch: BatchDescriptor; rows: string } {
  const replication = `r${replicationIndex}`;
  const definition = definitionAt(name, replication, step);
  const extra = definition.columns.length - 2;
  const row = (key: number, op = '') => `${op}${[key, `${replication}-${step}`, ...Array<number>(extra).fill(step)].join(',')}\n`;
  if (step < 2) {
    const body = { kind: 'seed' as const, seedId: `${replication}-seed`, part: step, final: step === 1, startVersion: '1' };
    return { batch: { batchId: `${replication}/${name}/seed/${step}`, replicationId: replication, epoch: 1, definition, body }, rows: row(replicationIndex * 100 + step) };
  }
  const keys = Array.from({ length: 500 }, (_, index) => (replicationIndex % 2 === 0 ? 5000 + index : 5499 - index));
  const body = { kind: 'changes' as const, fromVersion: String(step), toVersion: String(step + 1) };
  return {
    batch: { batchId: `${replication}/${name}/changes/${step}`, replicationId: replication, epoch: 1, definition, body },
    rows: keys.map((key) => row(key, 'U,')).join(''),
  };
}

/**
 * Issue 8 item 10: many replications share one staging database (and its tables). Their batches, column
 * additions and housekeeping run at once, each replication with its own connector (its own stager); the lock
 * order of docs/PIPELINE.md means no transaction ever fails with a deadlock (40P01).
 */
describe('PostgreSQL staging: lock order under many replications sharing one database', () => {
  let database: TempDatabase;

  beforeEach(async () => {
    database = await createTempDatabase('stg_locks');
  });

  afterEach(async () => {
    await database.drop();
  });

  it('applies the batches of 12 replications on 3 shared tables at once without a deadlock', async () => {
    const replications = 12;
    const tables = ['a', 'b', 'c'];
    const stagers: StagingConnector[] = Array.from({ length: replications }, () => createPostgresStaging(database.url, { encrypt: false }));
    const failures: string[] = [];
    try {
      await Promise.all(
        stagers.flatMap((staging, index) =>
          tables.map(async (name) => {
            for (let step = 0; step < 10; step += 1) {
              const { batch, rows } = batchAt(name, index, step);
              try {
                await staging.isStale(batch);
                await staging.ensureTable(batch.definition);
                await staging.applyBatch(batch, chunks(rows));
                if (step % 3 === 0) await staging.forgetAppliedBatches(new Date());
              } catch (error) {
                failures.push(`${String((error as { code?: unknown }).code)} ${(error as Error).message}`);
              }
            }
          }),
        ),
      );
    } finally {
      await Promise.all(stagers.map((staging) => staging.close()));
    }
    expect(failures).toEqual([]);
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ columns: number }>(`SELECT count(*)::int AS columns FROM information_schema.columns WHERE table_schema = 'shared' AND table_name = 'a'`);
      expect(rows[0]?.columns).toBe(2 + replications);
    } finally {
      await client.end();
    }
  }, 120000);

  it('housekeeping never waits for a lock: rows another session is forgetting are skipped', async () => {
    const staging = createPostgresStaging(database.url, { encrypt: false });
    const other = new Client({ connectionString: database.url });
    await other.connect();
    try {
      for (const step of [0, 1, 2, 3]) {
        const { batch, rows } = batchAt('a', 0, step);
        await staging.ensureTable(batch.definition);
        await staging.applyBatch(batch, chunks(rows));
      }
      // Another stager's forget, stalled in the middle: it holds the oldest row.
      await other.query('BEGIN');
      await other.query(`DELETE FROM svc_staging.applied_batches WHERE batch_id = 'r0/a/seed/0'`);

      const forgetting = staging.forgetAppliedBatches(new Date(Date.now() + 1000));
      const settled = await Promise.race([forgetting.then(() => 'done'), waitForLockWaiters(other, 1, 'the forget to wait').then(() => 'waiting')]);
      expect(settled).toBe('done');
      expect(await forgetting).toBe(3);
      await other.query('ROLLBACK');
      expect(await staging.forgetAppliedBatches(new Date(Date.now() + 1000))).toBe(1);
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      await other.end();
      await staging.close();
    }
  });

  it("a connector's first look at the control tables never waits for batches in flight (it locks no control table when nothing needs upgrading)", async () => {
    const first = createPostgresStaging(database.url, { encrypt: false });
    const other = new Client({ connectionString: database.url });
    await other.connect();
    const second = createPostgresStaging(database.url, { encrypt: false });
    try {
      const seed = batchAt('a', 0, 0);
      await first.ensureTable(seed.batch.definition);
      await first.applyBatch(seed.batch, chunks(seed.rows));
      // A batch in the middle of its transaction: it holds the fences and seed records it wrote.
      await other.query('BEGIN');
      await other.query(`UPDATE svc_staging.table_fences SET epoch = epoch`);
      await other.query(`UPDATE svc_staging.table_seeds SET started_at = started_at`);

      const checking = second.isStale(batchAt('a', 1, 2).batch);
      const settled = await Promise.race([checking.then(() => 'done'), waitForLockWaiters(other, 1, 'the control schema check to wait').then(() => 'waiting')]);
      expect(settled).toBe('done');
      expect(await checking).toBe(false);
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      await other.end();
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('a column added while a batch of the table is applied waits for the table lock, not the relation, and both finish', async () => {
    const first = createPostgresStaging(database.url, { encrypt: false });
    const second = createPostgresStaging(database.url, { encrypt: false });
    const observer = new Client({ connectionString: database.url });
    await observer.connect();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      const seed = batchAt('a', 0, 0);
      await first.ensureTable(seed.batch.definition);
      await first.applyBatch(seed.batch, chunks(seed.rows));
      const part = batchAt('a', 0, 1);
      // A seed part COPYs straight into the staging table: it holds the table's lock and the table while its rows are still arriving.
      const applying = first.applyBatch(part.batch, {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from(part.rows, 'utf8');
          await held;
        },
      });
      await new Promise((resume) => setTimeout(resume, 200));
      const widened = second.ensureTable(definitionAt('a', 'r1', 6));
      await waitForLockWaiters(observer, 1, 'the column addition to wait');
      const waits = await observer.query<{ locktype: string }>(
        `SELECT l.locktype FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted AND a.datname = current_database()`,
      );
      expect(waits.rows.map((row) => row.locktype)).toEqual(['advisory']);
      release();
      await expect(applying).resolves.toEqual({ applied: true, rowCount: 1 });
      await expect(widened).resolves.toEqual({ created: false, addedColumns: ['c_r1'] });
    } finally {
      release();
      await observer.end();
      await Promise.all([first.close(), second.close()]);
    }
  });
});

import type { TableDefinition } from '@svc/contracts';
import { NestedConnectionAcquireError, PoolBusyError, abandonRowStream, inConnectionScope, type SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { createPostgresSource } from './postgres-source';
import { readAll, withClient } from './testing/source-fixture';

/**
 * Issue 35 on a real PostgreSQL: the source's pool hands connections out through its gate, a work holding one that asks
 * for another is refused at once (it would wait on itself once the pool is busy), a pool that stays busy is said to be
 * busy, and a comparison's snapshot takes its connections together so that eight tables validate at once on four.
 */
describe('PostgreSQL source: its pool never lends to a work that waits on it', () => {
  let database: TempDatabase;
  let items: TableDefinition[];
  /** Where each table's changes start (tracking was switched on after its rows were written). */
  let from: string[];

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_gate');
    await withClient(database.url, async (client) => {
      for (let index = 0; index < 8; index += 1) {
        await client.query(`create table items_${index} (id integer primary key, name text); insert into items_${index} select g, 'row ' || g from generate_series(1, 200) g`);
      }
    });
    const setup = createPostgresSource(database.url, { encrypt: false });
    try {
      items = [];
      from = [];
      for (let index = 0; index < 8; index += 1) {
        const definition = (await setup.describeTable({ schema: 'public', name: `items_${index}` }))!;
        await setup.enableTracking(definition);
        items.push(definition);
        from.push((await setup.minValidVersion(definition.table)) ?? '0');
      }
      await withClient(database.url, (client) => client.query(`update items_0 set name = 'changed' where id <= 3`));
    } finally {
      await setup.close();
    }
  });

  afterAll(async () => {
    await database.drop();
  });

  const sourceOf = (maxConnections: number, waitMs = 5_000): SourceConnector => createPostgresSource(database.url, { encrypt: false, pool: { maxConnections, waitMs, sizeSetting: 'SOURCE_MAX_CONNECTIONS (now 1).' } });

  it('refuses at once a work that holds a change read and asks the pool for more (the guard against nested acquires)', async () => {
    const source = sourceOf(4);
    try {
      await inConnectionScope(async () => {
        const read = await source.readChanges(items[0], from[0], 100);
        await expect(source.describeTable(items[1].table)).rejects.toBeInstanceOf(NestedConnectionAcquireError);
        await expect(source.readChanges(items[1], from[1], 100)).rejects.toThrow(/Source: a work holding 1 connection\(s\) of this pool asked it for another/);
        // Its rows: the three changes, or none yet while another session's older transaction holds the horizon back.
        expect([0, 3]).toContain((await readAll(read)).rowCount);
        // Read to the end, the connection is back: the work may ask again.
        expect(await source.describeTable(items[1].table)).not.toBeNull();
      });
    } finally {
      await source.close();
    }
  });

  it('gives back the connection of a read abandoned unread, and says the pool is busy while it is held', async () => {
    const source = sourceOf(1, 300);
    try {
      const held = await source.readChanges(items[0], from[0], 100);
      const waited = source.readChanges(items[1], from[1], 100);
      await expect(waited).rejects.toBeInstanceOf(PoolBusyError);
      await expect(waited).rejects.toThrow(/^Source: busy: all 1 of the service's connections to it stayed in use by other work for 1 s \(this work needs 1 at once\); it is retried\. SOURCE_MAX_CONNECTIONS \(now 1\)\.$/);
      abandonRowStream(held);
      await expect(held.finished).rejects.toThrow(/closed before it was read to the end/);
      expect([0, 3]).toContain((await readAll(await source.readChanges(items[0], from[0], 100))).rowCount);
    } finally {
      await source.close();
    }
  });

  it('compares eight tables at once on a pool of four: each snapshot takes its change reads\' connection with its own', async () => {
    const source = sourceOf(4);
    try {
      const compared = await Promise.all(
        items.map((definition) =>
          inConnectionScope(() =>
            source.checksums!(definition).withSnapshot(async (snapshot) => {
              // The snapshot's reads take a while before the keys changed since are asked for (settledBase, changedSince).
              const [sums] = await snapshot.bucketSums(1);
              await new Promise((resolve) => setTimeout(resolve, 100));
              return { rows: sums?.rows, changed: (await snapshot.keysChangedSince(from[0], 10))?.length };
            }),
          ),
        ),
      );
      expect(compared).toEqual(items.map((_, index) => ({ rows: 200, changed: index === 0 ? 3 : 0 })));
    } finally {
      await source.close();
    }
  });
});

import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, waitForLockWaiters, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect, readAll } from './testing/source-fixture';

/**
 * Writers and disableTracking lock the tracked table before its change table. A change read must take its
 * locks in the same order: one that read the change table first and then waited for the table would
 * deadlock with a disableTracking (a Delete, a table removed from TablesToInclude) that holds the table.
 */
describe('PostgreSQL source: lock order of change reads', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let writer: Client;
  let releaser: Client;
  let items: TableDefinition;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_locks');
    writer = await connect(database.url);
    releaser = await connect(database.url);
    await writer.query('create table items (id integer primary key, name text)');
    source = createPostgresSource(database.url, { encrypt: false });
    items = (await source.describeTable({ schema: 'public', name: 'items' }))!;
    await source.enableTracking(items);
  });

  afterAll(async () => {
    await Promise.allSettled([writer.end(), releaser.end()]);
    await source.close();
    await database.drop();
  });

  it('waits for the table before it touches the change table, so a release holding the table can finish', async () => {
    const feed = new ChangeFeed(source, items, (await source.minValidVersion(items.table))!);
    const xid = await commitAndGetXid(writer, "insert into items values (1, 'Ann'), (2, 'Bob')");
    // Until the read horizon has passed the insert (other sessions of the shared server may hold it back).
    await feed.readUntil((read) => BigInt(read.toVersion) > xid);

    await releaser.query('begin');
    await releaser.query("set local lock_timeout = '5s'");
    await releaser.query('lock table public.items in access exclusive mode');
    const reading = source.readChanges(items, feed.watermark, 1000).then(readAll);
    await waitForLockWaiters(releaser, 1, 'the change read to wait for the table');
    // What disableTracking does next: without the read's lock order this is a deadlock (or a 5 s lock timeout).
    await releaser.query('lock table svc_ct."public.items" in access exclusive mode');
    await releaser.query('rollback');

    const { rowCount } = await reading;
    expect(rowCount).toBe(2);
  });
});

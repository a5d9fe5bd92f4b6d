import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { TableNotTrackedError } from '@svc/engines';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect } from './testing/source-fixture';

/**
 * Change tracking lost in the source: the table (or schema svc_ct, or the whole database) dropped and created
 * again took its triggers or its change history. A change read must say so (the extractor then reseeds,
 * which enables tracking again) rather than read nothing for ever, or fail on a missing change table.
 */
describe('PostgreSQL source: change tracking lost with a recreated table or schema', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let db: Client;
  let items: TableDefinition;

  beforeEach(async () => {
    database = await createTempDatabase('svc_srcpg_lost');
    db = await connect(database.url);
    await db.query('create table items (id integer primary key, name text)');
    source = createPostgresSource(database.url, { encrypt: false });
    items = (await source.describeTable({ schema: 'public', name: 'items' }))!;
    await source.enableTracking(items);
  });

  /** The changes since tracking (re)started, read once the read horizon (cluster-wide: other tests' transactions hold it) passed `xid`. */
  const changesThrough = async (xid: bigint) => new ChangeFeed(source, items, (await source.minValidVersion(items.table))!).readThrough(xid, 10);

  afterEach(async () => {
    await db.end();
    await source.close();
    await database.drop();
  });

  it('reads changes while tracking is in place', async () => {
    const xid = await commitAndGetXid(db, "insert into items values (1, 'a')");
    expect((await changesThrough(xid)).rowCount).toBe(1);
  });

  it('a table dropped and created again (its triggers gone, registry row and change table left): not tracked', async () => {
    const from = (await source.minValidVersion(items.table))!;
    await db.query('drop table items; create table items (id integer primary key, name text)');
    await commitAndGetXid(db, "insert into items values (2, 'never captured')");
    await expect(source.readChanges(items, from, 10)).rejects.toBeInstanceOf(TableNotTrackedError);

    await source.enableTracking(items);
    const xid = await commitAndGetXid(db, "insert into items values (3, 'captured')");
    expect((await changesThrough(xid)).rowCount).toBe(1);
  });

  it('schema svc_ct dropped (the change tables and registry gone): not tracked, and enabling again restores it', async () => {
    const from = (await source.minValidVersion(items.table))!;
    await db.query('drop schema svc_ct cascade');
    await expect(source.readChanges(items, from, 10)).rejects.toBeInstanceOf(TableNotTrackedError);
    await source.enableTracking(items);
    const xid = await commitAndGetXid(db, "insert into items values (3, 'captured')");
    expect((await changesThrough(xid)).rowCount).toBe(1);
  });

  it('only the change table dropped: not tracked (rather than a missing-relation error)', async () => {
    const from = (await source.minValidVersion(items.table))!;
    await db.query(`drop table svc_ct."public.items"`);
    await expect(source.readChanges(items, from, 10)).rejects.toBeInstanceOf(TableNotTrackedError);
  });
});

import type { TableDefinition } from '@svc/contracts';
import { CaptureFailedError, type SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect } from './testing/source-fixture';

/*
 * Trigger capture never fails, blocks or misses the user's writes (issue 38 item 3):
 *   - an error inside capture (here a renamed key column, which the capture function names) is caught: the write goes
 *     through, the failure is recorded in the writer's transaction, and the next change read (and the change probe)
 *     reseeds the table instead of reading on past a change that was never recorded;
 *   - writes under session_replication_role = replica (pg_restore, logical subscribers, many loading tools) are captured:
 *     the triggers fire ALWAYS ("ALTER TABLE … ENABLE ALWAYS TRIGGER": "fire regardless of the current replication role");
 *   - writes addressed to a partition are captured: "statement-level triggers … on a partitioned table … are not fired
 *     for statements addressing only a partition" (CREATE TRIGGER, Notes), so each partition has the triggers too.
 */
describe('PostgreSQL source: trigger capture that never fails or misses the user’s writes', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let writer: Client;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_safe');
    writer = await connect(database.url);
    source = createPostgresSource(database.url, { encrypt: false });
  });

  afterAll(async () => {
    await writer.end();
    await source.close();
    await database.drop();
  });

  const write = (sql: string) => commitAndGetXid(writer, sql);
  const tracked = async (name: string): Promise<{ definition: TableDefinition; feed: ChangeFeed }> => {
    const definition = (await source.describeTable({ schema: 'public', name }))!;
    await source.enableTracking(definition);
    return { definition, feed: new ChangeFeed(source, definition, (await source.minValidVersion(definition.table))!) };
  };

  it('lets a write through when capture fails (a renamed key column), and reseeds the table instead of reading past it', async () => {
    await writer.query('create table renamed (id integer primary key, name text)');
    const { feed } = await tracked('renamed');
    await feed.readThrough(await write("insert into renamed values (1, 'before')"));
    await writer.query('alter table renamed rename column id to code');
    // Before: ERROR: column new_row.id does not exist, and the application's INSERT failed.
    await write("insert into renamed values (2, 'after the rename')");
    expect((await writer.query('select count(*)::int as n from renamed')).rows[0]).toEqual({ n: 2 });
    const refusal = await feed.read().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CaptureFailedError);
    expect(refusal).toMatchObject({ kind: 'changes-purged', reason: expect.stringContaining('new_row.id') as unknown });
    expect((refusal as Error).message).toContain('[public].[renamed]');
    // The change probe gives the table its cycle (the failed write left no change record to find).
    const probe = await source.changedTables([{ table: { schema: 'public', name: 'renamed' }, version: feed.watermark }], { schemaStamps: false });
    expect(probe.unknown).toEqual([{ schema: 'public', name: 'renamed' }]);
    // A reseed installs capture for the key as it is now; reads go on from the new seed.
    const renamed = (await source.describeTable({ schema: 'public', name: 'renamed' }))!;
    await source.enableTracking(renamed);
    const after = new ChangeFeed(source, renamed, (await source.minValidVersion(renamed.table))!);
    const xid = await write("update renamed set name = 'tracked again' where code = 2");
    expect((await after.readThrough(xid)).rows).toEqual([['U', '2', 'tracked again']]);
  });

  it('captures writes made under session_replication_role = replica', async () => {
    await writer.query('create table replicated (id integer primary key, name text)');
    const { feed } = await tracked('replicated');
    const xid = await write("set local session_replication_role = replica; insert into replicated values (1, 'restored'); update replicated set name = 'loaded' where id = 1");
    expect((await feed.readThrough(xid)).rows).toEqual([['I', '1', 'loaded']]);
  });

  it('captures writes addressed to a partition, at any depth, and a TRUNCATE of one partition as deletes of its keys only', async () => {
    await writer.query(`create table events (id integer, region text, v text, primary key (id, region)) partition by list (region);
      create table events_eu partition of events for values in ('eu') partition by range (id);
      create table events_eu_low partition of events_eu for values from (0) to (100);
      create table events_us partition of events for values in ('us')`);
    const { feed } = await tracked('events');
    const inserted = await write(`insert into events values (1, 'us', 'through the parent');
      insert into events_us values (2, 'us', 'into the partition');
      insert into events_eu_low values (3, 'eu', 'two levels down')`);
    expect((await feed.readThrough(inserted)).rows).toEqual([
      ['I', '1', 'us', 'through the parent'],
      ['I', '2', 'us', 'into the partition'],
      ['I', '3', 'eu', 'two levels down'],
    ]);
    const changed = await write("update events_us set v = 'changed in the partition' where id = 2; delete from events_eu_low where id = 3");
    expect((await feed.readThrough(changed)).rows).toEqual([
      ['D', '3', 'eu', null],
      ['U', '2', 'us', 'changed in the partition'],
    ]);
    const truncated = await write('truncate events_us');
    expect((await feed.readThrough(truncated)).rows).toEqual([
      ['D', '1', 'us', null],
      ['D', '2', 'us', null],
    ]);
  });

  it('stops reading a partitioned table whose new partition has no capture yet, so that a reseed installs it', async () => {
    await writer.query(`create table readings (id integer primary key, v text) partition by range (id);
      create table readings_low partition of readings for values from (0) to (100)`);
    const { feed } = await tracked('readings');
    await writer.query('create table readings_high partition of readings for values from (100) to (200)');
    await expect(feed.read()).rejects.toMatchObject({ name: 'TableNotTrackedError' });
    const definition = (await source.describeTable({ schema: 'public', name: 'readings' }))!;
    await source.enableTracking(definition);
    const again = new ChangeFeed(source, definition, (await source.minValidVersion(definition.table))!);
    const xid = await write("insert into readings_high values (150, 'high')");
    expect((await again.readThrough(xid)).rows).toEqual([['I', '150', 'high']]);
  });
});

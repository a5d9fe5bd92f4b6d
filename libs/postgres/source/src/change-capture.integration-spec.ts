import type { TableDefinition } from '@svc/contracts';
import { type SourceConnector, SourceVersionsRewoundError } from '@svc/engines';
import { createTempDatabase, scrambledKeys, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { inChangeSchema, trackingNames } from './identifiers';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect } from './testing/source-fixture';

describe('PostgreSQL source: change capture', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let writer: Client;
  let items: TableDefinition;
  let pairs: TableDefinition;
  let itemFeed: ChangeFeed;
  let pairFeed: ChangeFeed;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_ct');
    writer = await connect(database.url);
    await writer.query(`
      create type mood as enum ('sad', 'ok', 'happy');
      create table items (id integer primary key, name text, mood mood, at timestamptz);
      create table pairs ("A key" integer, "b""key" text, v text, primary key ("b""key", "A key") deferrable);
    `);
    source = createPostgresSource(database.url, { encrypt: false });
    items = (await source.describeTable({ schema: 'public', name: 'items' }))!;
    pairs = (await source.describeTable({ schema: 'public', name: 'pairs' }))!;
    await source.enableTracking(items);
    await source.enableTracking(pairs);
    itemFeed = new ChangeFeed(source, items, (await source.minValidVersion(items.table))!);
    pairFeed = new ChangeFeed(source, pairs, (await source.minValidVersion(pairs.table))!);
  });

  afterAll(async () => {
    await writer.end();
    await source.close();
    await database.drop();
  });

  const write = (sql: string) => commitAndGetXid(writer, sql);

  it('captures inserts of a multi-row statement with the current row values', async () => {
    const xid = await write(`insert into items values (1, 'one', 'ok', '2024-01-01T00:00:00Z'), (2, null, null, null), (3, 'three 😀', 'happy', null)`);
    const read = await itemFeed.readThrough(xid);
    expect(read.rows).toEqual([
      ['I', '1', 'one', 'ok', '2024-01-01 00:00:00+00'],
      ['I', '2', null, null, null],
      ['I', '3', 'three 😀', 'happy', null],
    ]);
    expect(read.rowCount).toBe(3);
  });

  it('captures updates and deletes', async () => {
    const xid = await write(`update items set name = 'uno' where id = 1; update items set mood = 'sad' where id in (2, 3); delete from items where id = 3`);
    expect((await itemFeed.readThrough(xid)).rows).toEqual([
      ['D', '3', null, null, null],
      ['U', '1', 'uno', 'ok', '2024-01-01 00:00:00+00'],
      ['U', '2', null, 'sad', null],
    ]);
  });

  it('records a primary-key update as a delete of the old key and an insert of the new one', async () => {
    const xid = await write(`update items set id = 10 where id = 1`);
    expect((await itemFeed.readThrough(xid)).rows).toEqual([
      ['D', '1', null, null, null],
      ['I', '10', 'uno', 'ok', '2024-01-01 00:00:00+00'],
    ]);
  });

  it('reads keys swapped within one statement as updates of both', async () => {
    await write(`insert into pairs values (1, 'x', 'first'), (2, 'x', 'second')`);
    await pairFeed.readThrough(await write('select 1'));
    const xid = await write(`update pairs set "A key" = 3 - "A key"`);
    expect((await pairFeed.readThrough(xid)).rows).toEqual([
      ['U', '1', 'x', 'second'],
      ['U', '2', 'x', 'first'],
    ]);
  });

  it('nets insert, update and delete in separate transactions down to one delete', async () => {
    await write(`insert into items values (20, 'new', null, null)`);
    await write(`update items set name = 'newer' where id = 20`);
    const xid = await write(`delete from items where id = 20`);
    expect((await itemFeed.readThrough(xid)).rows).toEqual([['D', '20', null, null, null]]);
  });

  it('nets insert then update to an insert, and delete then re-insert to an update', async () => {
    await write(`insert into items values (30, 'a', null, null)`);
    await write(`update items set name = 'b' where id = 30`);
    await write(`delete from items where id = 2`);
    const xid = await write(`insert into items values (2, 'back', null, null)`);
    expect((await itemFeed.readThrough(xid)).rows).toEqual([
      ['I', '30', 'b', null, null],
      ['U', '2', 'back', null, null],
    ]);
  });

  it('streams the net changes in key order, whatever order the keys were written in and whatever the statistics say', async () => {
    const shuffled = scrambledKeys(3000, 10_000);
    const xid = await write(`insert into items (id, name) select id, 'n' || id from unnest(array[${shuffled.join(',')}]) as id`);
    // Fresh statistics: the planner then groups by hashing, whose order is no key order.
    await writer.query(`analyze ${inChangeSchema(trackingNames(items.table).changeTable)}`);
    const read = await itemFeed.readThrough(xid);
    const ids = read.arrived.map((row) => Number(row[1]));
    expect(ids).toHaveLength(3000);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('captures every key of a truncated table as a delete', async () => {
    await pairFeed.readThrough(await write('select 1'));
    const xid = await write('truncate pairs');
    expect((await pairFeed.readThrough(xid)).rows).toEqual([
      ['D', '1', 'x', null],
      ['D', '2', 'x', null],
    ]);
  });

  it('captures the writes of a role that does not own the table', async () => {
    const role = `svc_srcpg_writer_${database.name.slice(-10)}`;
    await writer.query(`create role "${role}"; grant insert, update, delete, select on items to "${role}"`);
    try {
      const xid = await write(`set local role "${role}"; insert into items values (40, 'by a writer role', null, null)`);
      expect((await itemFeed.readThrough(xid)).rows).toEqual([['I', '40', 'by a writer role', null, null]]);
    } finally {
      await writer.query(`drop owned by "${role}"; drop role "${role}"`);
    }
  });

  it('advances the watermark when nothing changed', async () => {
    const idle = await write('select 1');
    const read = await itemFeed.readUntil((result) => BigInt(result.toVersion) > idle);
    expect(read.rows).toEqual([]);
  });

  it('refuses a watermark ahead of the server, as after a restore into a cluster whose transaction ids restarted lower', async () => {
    const idle = await write('select 1');
    const read = await itemFeed.readUntil((result) => BigInt(result.toVersion) > idle);
    const ahead = (BigInt(read.toVersion) + 1000n).toString();
    await expect(itemFeed.read(1000, ahead)).rejects.toBeInstanceOf(SourceVersionsRewoundError);
  });
});

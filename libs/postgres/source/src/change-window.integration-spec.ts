import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect } from './testing/source-fixture';

describe('PostgreSQL source: change windows', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let writer: Client;
  let other: Client;
  let items: TableDefinition;
  let feed: ChangeFeed;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_win');
    writer = await connect(database.url);
    other = await connect(database.url);
    await writer.query('create table items (id integer primary key, name text); create table elsewhere (id integer)');
    source = createPostgresSource(database.url, { encrypt: false });
    items = (await source.describeTable({ schema: 'public', name: 'items' }))!;
    await source.enableTracking(items);
    feed = new ChangeFeed(source, items, (await source.minValidVersion(items.table))!);
  });

  afterAll(async () => {
    await writer.end();
    await other.end();
    await source.close();
    await database.drop();
  });

  const keysOf = (rows: Array<Array<string | null>>) => rows.map((row) => `${row[0]}${row[1]}`);

  describe('a limit on change records', () => {
    let first: bigint;
    let second: bigint;
    let third: bigint;

    beforeAll(async () => {
      first = await commitAndGetXid(writer, 'insert into items select g, null from generate_series(1, 3) g');
      second = await commitAndGetXid(writer, 'insert into items select g, null from generate_series(4, 6) g');
      third = await commitAndGetXid(writer, 'insert into items values (7, null), (8, null)');
      // Wait until a read reaches past all three, so that the horizon no longer decides where reads end.
      await feed.readUntil((read) => BigInt(read.toVersion) > third);
    });

    it('stops before the transaction whose records cross the limit', async () => {
      const read = await feed.read(4);
      expect(read.toVersion).toBe(second.toString());
      expect(keysOf(read.rows)).toEqual(['I1', 'I2', 'I3']);
    });

    it('takes records up to the limit exactly when a transaction ends there', async () => {
      const read = await feed.read(6);
      expect(read.toVersion).toBe(third.toString());
      expect(keysOf(read.rows)).toEqual(['I1', 'I2', 'I3', 'I4', 'I5', 'I6']);
    });

    it('takes the first transaction whole even when it alone exceeds the limit', async () => {
      const read = await feed.read(2);
      expect(read.toVersion).toBe(second.toString());
      expect(keysOf(read.rows)).toEqual(['I1', 'I2', 'I3']);
    });

    it('continues from where the limited read ended, and takes a last transaction over the limit alone', async () => {
      const next = await feed.read(1, second.toString());
      expect(next.toVersion).toBe(third.toString());
      expect(keysOf(next.rows)).toEqual(['I4', 'I5', 'I6']);
      const last = await feed.read(1, third.toString());
      expect(BigInt(last.toVersion)).toBeGreaterThan(third);
      expect(keysOf(last.rows)).toEqual(['I7', 'I8']);
      feed.watermark = last.toVersion;
    });

    it('reads everything when the limit is not reached', async () => {
      const read = await feed.read(8, first.toString());
      expect(BigInt(read.toVersion)).toBeGreaterThan(third);
      expect(read.rows).toHaveLength(8);
    });
  });

  describe('a transaction that commits after later ones', () => {
    it('is not read while it runs, holds the watermark below itself, and is read once it commits', async () => {
      // T1 writes first (so its xid is lower) and stays open; T2 writes and commits after it.
      await writer.query('begin');
      await writer.query("insert into items values (100, 'T1, long')");
      const t1 = BigInt((await writer.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0].xid);
      const t2 = await commitAndGetXid(other, "insert into items values (101, 'T2, short')");
      expect(t2).toBeGreaterThan(t1);

      const whileOpen = await feed.read();
      expect(BigInt(whileOpen.toVersion)).toBeLessThanOrEqual(t1);
      expect(keysOf(whileOpen.rows)).toEqual([]);
      feed.watermark = whileOpen.toVersion;

      await writer.query('commit');
      const afterCommit = await feed.readThrough(t2);
      expect(keysOf(afterCommit.rows)).toEqual(['I100', 'I101']);
    });

    it('lets an earlier transaction through while holding back the watermark at the open one', async () => {
      // T2 takes its xid first and commits while T1, with a later xid, is still open.
      await other.query('begin');
      await other.query("insert into items values (201, 'T2, committed first')");
      const t2 = BigInt((await other.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0].xid);
      await writer.query('begin');
      await writer.query("insert into items values (200, 'T1, long')");
      const t1 = BigInt((await writer.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0].xid);
      await other.query('commit');
      expect(t1).toBeGreaterThan(t2);

      const whileOpen = await feed.readUntil((read) => BigInt(read.toVersion) > t2);
      expect(BigInt(whileOpen.toVersion)).toBeLessThanOrEqual(t1);
      expect(keysOf(whileOpen.rows)).toEqual(['I201']);
      feed.watermark = whileOpen.toVersion;

      // Unrelated commits after T1 do not move the watermark past it.
      const later = await commitAndGetXid(other, 'insert into elsewhere values (1)');
      const stillOpen = await feed.read();
      expect(BigInt(stillOpen.toVersion)).toBeLessThanOrEqual(t1);
      expect(later).toBeGreaterThan(t1);

      await writer.query('commit');
      const afterCommit = await feed.readThrough(t1);
      expect(keysOf(afterCommit.rows)).toEqual(['I200']);
    });
  });
});

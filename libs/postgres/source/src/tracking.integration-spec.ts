import type { TableDefinition } from '@svc/contracts';
import type { SourceConnector } from '@svc/engines';
import { createTempDatabase, waitUntil, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { ChangesPurgedError, PrimaryKeyRequiredError, StaleDefinitionError, TableNotTrackedError } from '@svc/engines';
import { TRACKED_TABLES, inChangeSchema, trackingNames } from './identifiers';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect, readAll } from './testing/source-fixture';

describe('PostgreSQL source: tracking lifecycle and retention', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let db: Client;
  let items: TableDefinition;

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_life');
    db = await connect(database.url);
    await db.query(`
      create table items (id integer primary key, name text);
      create table nokey (x integer);
      create table rekeyed (a integer primary key, b integer not null);
      create table dropped (id integer primary key);
      create table renamed (id integer primary key, v text);
      create table busy (id integer primary key);
    `);
    source = createPostgresSource(database.url, { encrypt: false });
    items = (await source.describeTable({ schema: 'public', name: 'items' }))!;
  });

  afterAll(async () => {
    await db.end();
    await source.close();
    await database.drop();
  });

  const changeTable = (name: string) => inChangeSchema(trackingNames({ schema: 'public', name }).changeTable);
  const horizon = async () => BigInt((await db.query<{ xmin: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as xmin')).rows[0].xmin);
  const count = async (sql: string, params: unknown[] = []) => (await db.query<{ n: number }>(`select (${sql})::int as n`, params)).rows[0]?.n;
  const triggerCount = (table: string) => count(`select count(*) from pg_trigger where tgrelid = $1::regclass and tgname like 'svc_ct_%'`, [table]);

  it('is idempotent: enabling twice keeps one set of triggers, the recorded changes and the minimum valid version', async () => {
    await source.enableTracking(items);
    const minValid = await source.minValidVersion(items.table);
    await commitAndGetXid(db, "insert into items values (1, 'a')");
    await source.enableTracking(items);
    expect(await triggerCount('items')).toBe(4);
    expect(await source.minValidVersion(items.table)).toBe(minValid);
    await commitAndGetXid(db, "insert into items values (2, 'b')");
    expect(await count(`select count(*) from ${changeTable('items')}`)).toBe(2);
  });

  it('waits for writers in flight only up to the lock timeout, and tracks once they are done', async () => {
    const impatient = createPostgresSource(database.url, { encrypt: false, lockTimeoutMs: 200 });
    const rekeyed = (await source.describeTable({ schema: 'public', name: 'rekeyed' }))!;
    try {
      await db.query('begin');
      await db.query('insert into rekeyed values (100, 100)');
      await expect(impatient.enableTracking(rekeyed)).rejects.toThrow(/lock timeout/);
      await db.query('commit');
      await impatient.enableTracking(rekeyed);
      expect(await triggerCount('rekeyed')).toBe(4);
      await db.query('delete from rekeyed');
    } finally {
      await impatient.close();
    }
  });

  // The horizon is the snapshot's xmin, which any open transaction on the cluster holds back (another test's, another
  // database's): the minimum valid version lies between the horizons seen just before and just after enabling.
  it('starts the minimum valid version at the horizon of the moment tracking was enabled', async () => {
    const before = await horizon();
    await source.enableTracking((await source.describeTable({ schema: 'public', name: 'dropped' }))!);
    const after = await horizon();
    const minValid = BigInt((await source.minValidVersion({ schema: 'public', name: 'dropped' }))!);
    expect(minValid >= before && minValid <= after).toBe(true);
  });

  it('refuses to track a table without a primary key, or with a definition that is out of date', async () => {
    const nokey = (await source.describeTable({ schema: 'public', name: 'nokey' }))!;
    await expect(source.enableTracking(nokey)).rejects.toBeInstanceOf(PrimaryKeyRequiredError);
    await expect(source.readChanges(nokey, '1', 10)).rejects.toBeInstanceOf(PrimaryKeyRequiredError);
    await expect(source.enableTracking({ ...items, primaryKey: ['name'] })).rejects.toBeInstanceOf(StaleDefinitionError);
    await expect(source.enableTracking({ ...items, table: { schema: 'public', name: 'gone' } })).rejects.toBeInstanceOf(StaleDefinitionError);
    expect(await count("select count(*) from pg_trigger where tgname like 'svc_ct_%' and tgrelid = 'nokey'::regclass")).toBe(0);
  });

  it('rebuilds the change table and restarts tracking when the primary key changed', async () => {
    const before = (await source.describeTable({ schema: 'public', name: 'rekeyed' }))!;
    await source.enableTracking(before);
    await commitAndGetXid(db, 'insert into rekeyed values (1, 1)');
    const registration = async () => (await db.query<{ by: string }>(`select xmin::text as by from ${TRACKED_TABLES} where name = 'rekeyed'`)).rows[0]?.by;
    const firstRegistration = await registration();
    await db.query('alter table rekeyed drop constraint rekeyed_pkey, add primary key (b)');
    const after = (await source.describeTable({ schema: 'public', name: 'rekeyed' }))!;
    const horizonBefore = await horizon();
    await source.enableTracking(after);
    // Registered again (another transaction wrote its row) at the rebuild's horizon, not kept from the first enabling.
    expect(await registration()).not.toBe(firstRegistration);
    expect(BigInt((await source.minValidVersion(after.table))!)).toBeGreaterThanOrEqual(horizonBefore);
    expect(await count(`select count(*) from ${changeTable('rekeyed')}`)).toBe(0);
    const xid = await commitAndGetXid(db, 'insert into rekeyed values (2, 2)');
    const feed = new ChangeFeed(source, after, (await source.minValidVersion(after.table))!);
    expect((await feed.readThrough(xid)).rows).toEqual([['I', '2', '2']]);
  });

  describe('purging by retention', () => {
    let oldXid: bigint;
    let recentXid: bigint;

    const horizonPast = (xid: bigint) => waitUntil(async () => (await horizon()) > xid, 20_000, `the read horizon to pass ${xid}`);

    beforeAll(async () => {
      oldXid = await commitAndGetXid(db, "insert into items values (10, 'old'); update items set name = 'old too' where id = 1");
      recentXid = await commitAndGetXid(db, "insert into items values (11, 'recent')");
      // Age the older records instead of waiting half a day.
      await db.query(`update ${changeTable('items')} set svc_changed_at = now() - interval '13 hours' where svc_xid <= $1::xid8`, [oldXid.toString()]);
      // Purges stop at the read horizon, which is cluster-wide: another suite's open transaction may hold it back.
      await horizonPast(recentXid);
    });

    it('purges records older than the retention and raises the minimum valid version past them', async () => {
      expect(await source.purgeChanges(items.table, '1 Day')).toEqual({ purgedRows: 0 });
      const purged = await source.purgeChanges(items.table, '12 Hours');
      expect(purged.purgedRows).toBe(4);
      expect(await source.minValidVersion(items.table)).toBe((oldXid + 1n).toString());
      expect(await count(`select count(*) from ${changeTable('items')}`)).toBe(1);
      expect(await source.purgeChanges(items.table, '12 Hours')).toEqual({ purgedRows: 0 });
      expect(await source.minValidVersion(items.table)).toBe((oldXid + 1n).toString());
    });

    it('refuses to read from a watermark below the minimum valid version (the table must be reseeded)', async () => {
      const error = await source.readChanges(items, oldXid.toString(), 100).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(ChangesPurgedError);
      expect((error as ChangesPurgedError).minValidVersion).toBe((oldXid + 1n).toString());
    });

    it('still reads from the minimum valid version on', async () => {
      const feed = new ChangeFeed(source, items, (await source.minValidVersion(items.table))!);
      expect((await feed.readThrough(recentXid)).rows).toEqual([['I', '11', 'recent']]);
    });
    it('purges nothing at or above the read horizon: an older transaction still open keeps the records and the minimum valid version', async () => {
      await db.query('create table aging (id integer primary key)');
      const aging = (await source.describeTable({ schema: 'public', name: 'aging' }))!;
      await source.enableTracking(aging);
      const blocker = await connect(database.url);
      try {
        await blocker.query('begin');
        await blocker.query('select pg_current_xact_id()');
        const aged = await commitAndGetXid(db, 'insert into aging values (1)');
        await db.query(`update ${changeTable('aging')} set svc_changed_at = now() - interval '13 hours'`);
        const minValidBefore = await source.minValidVersion(aging.table);
        expect(await source.purgeChanges(aging.table, '12 Hours')).toEqual({ purgedRows: 0 });
        expect(await source.minValidVersion(aging.table)).toBe(minValidBefore);
        expect(BigInt(minValidBefore!)).toBeLessThanOrEqual(await horizon());
        await blocker.query('commit');
        await horizonPast(aged);
        expect(await source.purgeChanges(aging.table, '12 Hours')).toEqual({ purgedRows: 1 });
        expect(await source.minValidVersion(aging.table)).toBe((aged + 1n).toString());
      } finally {
        await blocker.query('rollback').catch(() => undefined);
        await blocker.end();
        await source.disableTracking(aging.table);
        await db.query('drop table aging');
      }
    });
  });

  it('disables tracking: triggers, change table and registry row go, writes go on', async () => {
    await source.disableTracking(items.table);
    expect(await triggerCount('items')).toBe(0);
    expect(await count(`select count(*) from pg_class where oid = to_regclass($1)`, [changeTable('items')])).toBe(0);
    expect(await source.minValidVersion(items.table)).toBeNull();
    await expect(source.readChanges(items, '1', 10)).rejects.toBeInstanceOf(TableNotTrackedError);
    await commitAndGetXid(db, "insert into items values (50, 'untracked')");
    await source.disableTracking(items.table);
    expect((await readAll(await source.readSnapshot(items))).rowCount).toBe(5);
  });

  it('tracks a released table again from scratch: empty change table, a new minimum valid version, capture works', async () => {
    await commitAndGetXid(db, "update items set name = 'while released' where id = 50");
    const horizonBefore = await horizon();
    await source.enableTracking(items);
    expect(await triggerCount('items')).toBe(4);
    expect(await count(`select count(*) from ${changeTable('items')}`)).toBe(0);
    const minValid = (await source.minValidVersion(items.table))!;
    expect(BigInt(minValid)).toBeGreaterThanOrEqual(horizonBefore);
    const xid = await commitAndGetXid(db, "update items set name = 'tracked again' where id = 50");
    const feed = new ChangeFeed(source, items, minValid);
    expect((await feed.readThrough(xid)).rows).toEqual([['U', '50', 'tracked again']]);
  });

  it('releases a table renamed since it was tracked: its triggers go with the rest, writes go on', async () => {
    const renamed = (await source.describeTable({ schema: 'public', name: 'renamed' }))!;
    await source.enableTracking(renamed);
    await db.query('alter table renamed rename to renamed_later');
    await source.disableTracking(renamed.table);
    expect(await triggerCount('renamed_later')).toBe(0);
    expect(await count(`select count(*) from pg_class where oid = to_regclass($1)`, [changeTable('renamed')])).toBe(0);
    expect(await source.minValidVersion(renamed.table)).toBeNull();
    await commitAndGetXid(db, "insert into renamed_later values (1, 'untracked')");
  });

  it('waits for readers of the table only up to the lock timeout, and then releases nothing', async () => {
    const impatient = createPostgresSource(database.url, { encrypt: false, lockTimeoutMs: 200 });
    const busy = (await source.describeTable({ schema: 'public', name: 'busy' }))!;
    try {
      await source.enableTracking(busy);
      await db.query('begin');
      await db.query('select count(*) from busy');
      await expect(impatient.disableTracking(busy.table)).rejects.toThrow(/lock timeout/);
      await db.query('commit');
      expect(await triggerCount('busy')).toBe(4);
      expect(await source.minValidVersion(busy.table)).not.toBeNull();
      await impatient.disableTracking(busy.table);
      expect(await triggerCount('busy')).toBe(0);
    } finally {
      await impatient.close();
    }
  });

  it('disables tracking of a table that was dropped meanwhile', async () => {
    await db.query('drop table dropped');
    await source.disableTracking({ schema: 'public', name: 'dropped' });
    expect(await source.minValidVersion({ schema: 'public', name: 'dropped' })).toBeNull();
    expect(await count(`select count(*) from pg_proc where proname = $1`, [trackingNames({ schema: 'public', name: 'dropped' }).captureFunction])).toBe(0);
  });

  it('reports nothing for a database where nothing was ever tracked', async () => {
    const fresh = await createTempDatabase('svc_srcpg_none');
    const untouched = createPostgresSource(fresh.url, { encrypt: false });
    try {
      expect(await untouched.minValidVersion(items.table)).toBeNull();
      expect(await untouched.purgeChanges(items.table, '8 Days')).toEqual({ purgedRows: 0 });
      await untouched.disableTracking(items.table);
    } finally {
      await untouched.close();
      await fresh.drop();
    }
  });
});

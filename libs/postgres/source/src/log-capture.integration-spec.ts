import type { TableDefinition } from '@svc/contracts';
import { CaptureFailedError, ChangesPurgedError, type SourceConnector } from '@svc/engines';
import { createLogicalTempDatabase, waitUntil, type TempDatabase } from '@svc/testing';
import { Pool, type Client } from 'pg';
import { holdLogRelay, relayLog, releaseLogRelay, stopRelay } from './log/log-relay';
import { createPostgresSource } from './postgres-source';
import { ChangeFeed, commitAndGetXid } from './testing/change-feed';
import { connect } from './testing/source-fixture';

/*
 * Changes read from the write-ahead log (issue 38): on a server with wal_level = logical and a login that may use a
 * replication slot, tracking publishes the table (publication svc_ct) and the database's slot (svc_ct_<oid>) is relayed
 * into the change tables; nothing runs inside the user's writes. PostgreSQL's documentation, "Logical Decoding" and
 * "Logical Replication Message Formats", describes what the log gives: a deleted row's key (REPLICA IDENTITY DEFAULT),
 * TOASTed values the change left alone as "unchanged" (not sent), TRUNCATE as a message without keys, and changes to a
 * partition as its root's with publish_via_partition_root.
 */
describe('PostgreSQL source: capture from the log', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let writer: Client;

  beforeAll(async () => {
    database = await createLogicalTempDatabase('svc_srcpg_log');
    writer = await connect(database.url);
    // Every read relays the log first (no interval), so a read right after a write sees it.
    source = createPostgresSource(database.url, { encrypt: false, relayIntervalMs: 0 });
  });

  afterAll(async () => {
    await writer?.end();
    await source?.close();
    await database?.drop();
  });

  const write = (sql: string) => commitAndGetXid(writer, sql);
  /**
   * What the first read that covers transaction `xid` throws (null when reads pass it without one): a read ends at the
   * read horizon, so one taken right after the commit may stop before it while an older transaction holds the horizon.
   */
  const refusalCovering = (feed: ChangeFeed, xid: bigint): Promise<unknown> =>
    feed.readUntil((read) => BigInt(read.toVersion) > xid).then(
      () => null,
      (error: unknown) => error,
    );
  const tracked = async (name: string): Promise<{ definition: TableDefinition; feed: ChangeFeed }> => {
    const definition = (await source.describeTable({ schema: 'public', name }))!;
    await source.enableTracking(definition);
    return { definition, feed: new ChangeFeed(source, definition, (await source.minValidVersion(definition.table))!) };
  };
  const captureOf = async (name: string): Promise<string | undefined> =>
    (await writer.query<{ capture: string }>('select capture from svc_ct.tracked_tables where name = $1', [name])).rows[0]?.capture;

  it('publishes the table instead of installing triggers, and reads inserts, updates, key changes and deletes', async () => {
    await writer.query('create table orders (id integer primary key, status text)');
    const { feed } = await tracked('orders');
    expect(await captureOf('orders')).toBe('log');
    expect((await writer.query("select count(*)::int as n from pg_trigger where tgrelid = 'orders'::regclass")).rows[0]).toEqual({ n: 0 });
    expect((await writer.query("select tablename from pg_publication_tables where pubname = 'svc_ct'")).rows).toEqual([{ tablename: 'orders' }]);
    const inserted = await write("insert into orders values (1, 'new'), (2, 'new'), (3, 'new')");
    expect((await feed.readThrough(inserted)).rows).toEqual([
      ['I', '1', 'new'],
      ['I', '2', 'new'],
      ['I', '3', 'new'],
    ]);
    const changed = await write("update orders set status = 'paid' where id = 1; update orders set id = 20 where id = 2; delete from orders where id = 3");
    expect((await feed.readThrough(changed)).rows).toEqual([
      ['D', '2', null],
      ['D', '3', null],
      ['I', '20', 'new'],
      ['U', '1', 'paid'],
    ]);
  });

  it('never writes NULL for a TOASTed value an update left unchanged (the log does not send it)', async () => {
    await writer.query('create table documents (id integer primary key, title text, body text)');
    await writer.query('alter table documents alter column body set storage external');
    const { feed } = await tracked('documents');
    const body = 'x'.repeat(100_000);
    await feed.readThrough(await write(`insert into documents values (1, 'draft', '${body}')`));
    const xid = await write("update documents set title = 'final' where id = 1");
    const read = await feed.readThrough(xid);
    expect(read.rows).toEqual([['U', '1', 'final', body]]);
  });

  it('captures writes under session_replication_role = replica and writes addressed to a partition', async () => {
    await writer.query(`create table events (id integer, region text, v text, primary key (id, region)) partition by list (region);
      create table events_eu partition of events for values in ('eu');
      create table events_us partition of events for values in ('us')`);
    const { feed } = await tracked('events');
    const xid = await write(`set local session_replication_role = replica;
      insert into events values (1, 'us', 'restored');
      insert into events_eu values (2, 'eu', 'into the partition')`);
    expect((await feed.readThrough(xid)).rows).toEqual([
      ['I', '1', 'us', 'restored'],
      ['I', '2', 'eu', 'into the partition'],
    ]);
    // A partition made after tracking began is published through its root too: no reseed needed.
    await writer.query("create table events_ap partition of events for values in ('ap')");
    const later = await write("insert into events_ap values (3, 'ap', 'new partition')");
    expect((await feed.readThrough(later)).rows).toEqual([['I', '3', 'ap', 'new partition']]);
  });

  it('lets every write through a renamed key column, and reseeds the table rather than reading past keys it cannot name', async () => {
    await writer.query('create table renamed (id integer primary key, name text)');
    const { feed } = await tracked('renamed');
    await feed.readThrough(await write("insert into renamed values (1, 'before')"));
    await writer.query('alter table renamed rename column id to code');
    const refusal = await refusalCovering(feed, await write("insert into renamed values (2, 'after the rename')"));
    expect(refusal).toBeInstanceOf(CaptureFailedError);
    expect((refusal as Error).message).toContain('key column id');
  });

  it('reseeds a truncated table', async () => {
    await writer.query('create table emptied (id integer primary key)');
    const { feed } = await tracked('emptied');
    await feed.readThrough(await write('insert into emptied values (1), (2)'));
    expect(await refusalCovering(feed, await write('truncate emptied'))).toBeInstanceOf(CaptureFailedError);
  });

  it('takes a table whose replica identity is gone out of the publication (its UPDATEs would fail), reseeds it and captures it by triggers', async () => {
    await writer.query('create table loose (id integer primary key, v text)');
    const { feed } = await tracked('loose');
    await feed.readThrough(await write("insert into loose values (1, 'a')"));
    await writer.query('alter table loose replica identity nothing');
    // The next relay (any read or probe) unpublishes it; until then PostgreSQL refuses its UPDATEs.
    await expect(feed.read()).rejects.toBeInstanceOf(CaptureFailedError);
    await write("update loose set v = 'b' where id = 1");
    const { feed: again } = await tracked('loose');
    expect(await captureOf('loose')).toBe('trigger');
    // Reads go on from the reseed's snapshot.
    again.watermark = (await writer.query<{ v: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as v')).rows[0].v;
    const xid = await write("update loose set v = 'c' where id = 1");
    expect((await again.readThrough(xid)).rows).toEqual([['U', '1', 'c']]);
  });

  it('reseeds every log-captured table when the slot was dropped, never reading across the gap', async () => {
    await writer.query('create table survivors (id integer primary key)');
    const { feed } = await tracked('survivors');
    await feed.readThrough(await write('insert into survivors values (1)'));
    // As a DBA would: the relay's walsender holds the slot, so its session is ended first.
    await writer.query('select pg_terminate_backend(active_pid) from pg_replication_slots where database = current_database() and active_pid is not null');
    await waitUntil(async () => (await writer.query('select from pg_replication_slots where database = current_database() and active')).rowCount === 0, 10000, 'the walsender to end');
    await writer.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots where database = current_database()');
    await write('insert into survivors values (2)');
    await expect(feed.read()).rejects.toBeInstanceOf(ChangesPurgedError);
    expect((await writer.query('select count(*)::int as n from pg_replication_slots where database = current_database()')).rows[0]).toEqual({ n: 1 });
  });

  it('relays a backlog in rounds smaller than it (whole transactions each), losing and repeating nothing', async () => {
    await writer.query('create table backlog (id integer primary key, v text)');
    const { definition, feed } = await tracked('backlog');
    let last = 0n;
    for (let round = 0; round < 10; round += 1) {
      last = await write(`insert into backlog select g, 'r${round}' from generate_series(${round * 3 + 1}, ${round * 3 + 3}) g`);
    }
    // This pool's relay leads (the shared source's, which led so far, stops with it), in rounds of 4 messages.
    await source.close();
    source = createPostgresSource(database.url, { encrypt: false, relayIntervalMs: 0 });
    const pool = new Pool({ connectionString: database.url, max: 1 });
    try {
      await relayLog(pool, { chunkMessages: 4 });
      await stopRelay(pool);
      const relayed = await pool.query<{ n: number; xids: number }>('select count(*)::int as n, count(distinct svc_xid)::int as xids from svc_ct."public.backlog"');
      expect(relayed.rows[0]).toEqual({ n: 30, xids: 10 });
    } finally {
      await pool.end();
    }
    const read = await new ChangeFeed(source, definition, feed.watermark).readThrough(last);
    expect(read.rowCount).toBe(30);
    expect(new Set(read.rows.map((row) => row[1])).size).toBe(30);
  });

  it('relays for every process: one leads, another asks it (NOTIFY) and reads at once, and takes over when it stops', async () => {
    await writer.query('create table shared (id integer primary key)');
    const { definition, feed } = await tracked('shared');
    await feed.readThrough(await write('insert into shared values (1)'));
    // `source` leads (its reads relayed); a second process's connector follows.
    const other = createPostgresSource(database.url, { encrypt: false, relayIntervalMs: 0 });
    try {
      const follower = new ChangeFeed(other, definition, feed.watermark);
      const started = Date.now();
      expect((await follower.readThrough(await write('insert into shared values (2)'))).rows).toEqual([['I', '2']]);
      // Asked, the leader relays at once: well inside the 5 s a follower waits at most, or the 5 s of an idle round.
      expect(Date.now() - started).toBeLessThan(4000);
      await source.close();
      source = createPostgresSource(database.url, { encrypt: false, relayIntervalMs: 0 });
      expect((await follower.readThrough(await write('insert into shared values (3)'))).rows).toEqual([['I', '3']]);
      const leaders = await writer.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_type = 'walsender'");
      expect(leaders.rows[0]).toEqual({ n: 1 });
    } finally {
      await other.close();
    }
  });

  it('lets an operator hold the relay: the leader is ended, nothing is relayed meanwhile, and the changes follow once released', async () => {
    await writer.query('create table held (id integer primary key)');
    const { feed } = await tracked('held');
    await feed.readThrough(await write('insert into held values (1)'));
    const holder = await connect(database.url);
    try {
      await holdLogRelay(holder);
      await waitUntil(async () => (await writer.query('select from pg_replication_slots where database = current_database() and active')).rowCount === 0, 10000, 'the walsender to end');
      const xid = await write('insert into held values (2)');
      expect((await writer.query<{ n: number }>('select count(*)::int as n from svc_ct."public.held"')).rows[0]).toEqual({ n: 1 });
      await releaseLogRelay(holder);
      expect((await feed.readThrough(xid)).rows).toEqual([['I', '2']]);
    } finally {
      await holder.end();
    }
  });

  it('leaves nothing of itself in the source once every table is released: schema, publication, slot, triggers, functions', async () => {
    const fresh = await createLogicalTempDatabase('svc_srcpg_log_delete');
    const client = await connect(fresh.url);
    const own = createPostgresSource(fresh.url, { encrypt: false, relayIntervalMs: 0 });
    try {
      await client.query('create table a (id integer primary key); create table b (id integer primary key, v text)');
      const before = await catalogOf(client);
      for (const name of ['a', 'b']) await own.enableTracking((await own.describeTable({ schema: 'public', name }))!);
      expect(await catalogOf(client)).not.toEqual(before);
      // The probe relays, and says how much WAL the slot keeps (the svc_source_wal_held_bytes metric).
      const probe = await own.changedTables([{ table: { schema: 'public', name: 'a' }, version: '1' }], { schemaStamps: false });
      expect(probe.walHeldBytes).toEqual(expect.any(Number));
      for (const name of ['a', 'b']) await own.disableTracking({ schema: 'public', name });
      expect(await catalogOf(client)).toEqual(before);
    } finally {
      await own.close();
      await client.end();
      await fresh.drop();
    }
  });
});

describe('PostgreSQL source: tracking enabled while the database is written', () => {
  it('relays once the first table is tracked though other tables were written between the slot and the publication (pgoutput would fail for good)', async () => {
    const fresh = await createLogicalTempDatabase('svc_srcpg_log_busy');
    const client = await connect(fresh.url);
    const noise = await connect(fresh.url);
    const own = createPostgresSource(fresh.url, { encrypt: false, relayIntervalMs: 0 });
    let writing = true;
    try {
      await client.query('create table busy (id integer primary key, v text); create table noise (id serial primary key, at timestamptz default now())');
      // Writes every millisecond or so, before, during and after the slot and the publication are made.
      const writes = (async () => {
        while (writing) await noise.query('insert into noise default values');
      })();
      const definition = (await own.describeTable({ schema: 'public', name: 'busy' }))!;
      await own.enableTracking(definition);
      const feed = new ChangeFeed(own, definition, (await own.minValidVersion(definition.table))!);
      const inserted = await commitAndGetXid(client, "insert into busy values (1, 'a')");
      expect((await feed.readThrough(inserted)).rows).toEqual([['I', '1', 'a']]);
      writing = false;
      await writes;
    } finally {
      writing = false;
      await own.close();
      await Promise.allSettled([client.end(), noise.end()]);
      await fresh.drop();
    }
  });
});

describe('PostgreSQL source: a slot that cannot be read past a change from before the publication', () => {
  it('is dropped and made anew: its tables reseed instead of every read failing for ever', async () => {
    const fresh = await createLogicalTempDatabase('svc_srcpg_log_stuck');
    const client = await connect(fresh.url);
    const own = createPostgresSource(fresh.url, { encrypt: false, relayIntervalMs: 0 });
    try {
      await client.query('create table stuck (id integer primary key); create table noise (id serial primary key)');
      // As the version before this one left it: the slot made first, a write, and only then the publication.
      const slot = (await client.query<{ slot: string }>("select 'svc_ct_' || oid as slot from pg_database where datname = current_database()")).rows[0]?.slot;
      await client.query("select pg_create_logical_replication_slot($1, 'pgoutput')", [slot]);
      await client.query('insert into noise default values');
      const definition = (await own.describeTable({ schema: 'public', name: 'stuck' }))!;
      await own.enableTracking(definition);
      const feed = new ChangeFeed(own, definition, (await own.minValidVersion(definition.table))!);
      await commitAndGetXid(client, 'insert into stuck values (1)');
      // The relay drops the slot it cannot read and makes it anew (its retry): the table's changes before are gone.
      await expect(feed.read()).rejects.toBeInstanceOf(ChangesPurgedError);
      // The new slot reads: after the reseed's tracking, changes come through.
      await own.enableTracking(definition);
      const reseeded = new ChangeFeed(own, definition, (await own.minValidVersion(definition.table))!);
      const inserted = await commitAndGetXid(client, 'insert into stuck values (2)');
      expect((await reseeded.readThrough(inserted)).rows).toEqual([['I', '2']]);
    } finally {
      await own.close();
      await client.end();
      await fresh.drop();
    }
  });
});

describe('PostgreSQL source: Delete while another process leads the relay', () => {
  it('asks the other leader to stop (NOTIFY), waits for its walsender to end, and leaves nothing behind', async () => {
    const fresh = await createLogicalTempDatabase('svc_srcpg_log_delete_led');
    const client = await connect(fresh.url);
    const releasing = createPostgresSource(fresh.url, { encrypt: false, relayIntervalMs: 0 });
    const leading = createPostgresSource(fresh.url, { encrypt: false, relayIntervalMs: 0 });
    try {
      await client.query('create table a (id integer primary key)');
      const before = await catalogOf(client);
      const definition = (await releasing.describeTable({ schema: 'public', name: 'a' }))!;
      await releasing.enableTracking(definition);
      // The other process's reads make it the leader: its walsender holds the slot.
      const feed = new ChangeFeed(leading, definition, (await leading.minValidVersion(definition.table))!);
      await feed.readThrough(await commitAndGetXid(client, 'insert into a values (1)'));
      expect((await client.query("select count(*)::int as n from pg_stat_activity where datname = current_database() and backend_type = 'walsender'")).rows[0]).toEqual({ n: 1 });
      await releasing.disableTracking({ schema: 'public', name: 'a' });
      expect(await catalogOf(client)).toEqual(before);
    } finally {
      await Promise.allSettled([releasing.close(), leading.close()]);
      await client.end();
      await fresh.drop();
    }
  });
});

/** What a service could leave in a database: schemas, publications, its slots, triggers and functions outside pg_catalog. */
async function catalogOf(client: Client): Promise<Record<string, string[]>> {
  const list = async (sql: string) => (await client.query<{ item: string }>(sql)).rows.map((row) => row.item);
  return {
    schemas: await list("select nspname::text as item from pg_namespace where nspname not like 'pg\\_%' order by 1"),
    publications: await list('select pubname::text as item from pg_publication order by 1'),
    slots: await list('select slot_name::text as item from pg_replication_slots where database = current_database() order by 1'),
    triggers: await list('select tgname::text as item from pg_trigger where not tgisinternal order by 1'),
    functions: await list("select p.proname::text as item from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema') order by 1"),
  };
}

describe('PostgreSQL source: the first tables of a database tracked at once', () => {
  it('makes the publication once when several processes set capture up together (two seeds starting at the same time)', async () => {
    const fresh = await createLogicalTempDatabase('svc_srcpg_log_race');
    const names = ['t1', 't2', 't3', 't4', 't5', 't6'];
    // Each a process of its own: the setup's advisory lock serialises what runs inside its transaction, not the slot's making before it.
    const sources = names.map(() => createPostgresSource(fresh.url, { encrypt: false, relayIntervalMs: 0 }));
    const client = await connect(fresh.url);
    try {
      for (const name of names) await client.query(`create table ${name} (id integer primary key)`);
      const outcomes = await Promise.allSettled(
        sources.map(async (own, index) => {
          const definition = await own.describeTable({ schema: 'public', name: names[index] ?? '' });
          if (!definition) throw new Error(`table ${names[index] ?? ''} not found`);
          await own.enableTracking(definition);
        }),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      const published = await client.query<{ name: string }>("select tablename as name from pg_publication_tables where pubname = 'svc_ct' order by 1");
      expect(published.rows.map((row) => row.name)).toEqual(names);
    } finally {
      await Promise.allSettled(sources.map((source) => source.close()));
      await client.end();
      await fresh.drop();
    }
  });
});

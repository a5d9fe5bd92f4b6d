import { tableKey, type TableRef } from '@svc/contracts';
import type { SourceConnector, TableWatermark } from '@svc/engines';
import { createTempDatabase, waitUntil, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { createPostgresSource } from './postgres-source';
import { commitAndGetXid } from './testing/change-feed';
import { connect } from './testing/source-fixture';

const TABLES = 60;
const ref = (index: number): TableRef => ({ schema: 'public', name: `t${index}` });
const keys = (tables: readonly TableRef[]) => tables.map(tableKey).sort();
const WITH_STAMPS = { schemaStamps: true };

describe('PostgreSQL source: which tracked tables changed (changedTables)', () => {
  let database: TempDatabase;
  let source: SourceConnector;
  let writer: Client;
  let other: Client;
  /** A version no change of the tables reaches: every table's watermark after tracking began. */
  let start: string;

  const horizon = async () => (await writer.query<{ v: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as v')).rows[0].v;
  /**
   * The horizon once it passed transaction `xid`: a change read stops at the snapshot's xmin, which is cluster-wide, so
   * transactions of other tests on the server may hold it back for a while.
   */
  const horizonPast = async (xid: bigint) => {
    let reached = '0';
    await waitUntil(async () => BigInt((reached = await horizon())) > xid, 20000, `the read horizon to pass ${xid}`);
    return reached;
  };
  const everyTableAt = (version: string): TableWatermark[] => Array.from({ length: TABLES }, (_, index) => ({ table: ref(index), version }));

  beforeAll(async () => {
    database = await createTempDatabase('svc_srcpg_changed');
    writer = await connect(database.url);
    other = await connect(database.url);
    await writer.query(Array.from({ length: TABLES }, (_, index) => `create table t${index} (id integer primary key, v integer);`).join('\n'));
    source = createPostgresSource(database.url, { encrypt: false });
    for (let index = 0; index < TABLES; index++) await source.enableTracking((await source.describeTable(ref(index)))!);
    await writer.query('create table untracked (id integer primary key)');
    start = await horizon();
  });

  afterAll(async () => {
    await writer.end();
    await other.end();
    await source.close();
    await database.drop();
  });

  it('names exactly the tables with a committed change past their watermark, in one pass over all of them', async () => {
    const quiet = await source.changedTables(everyTableAt(start), WITH_STAMPS);
    expect({ changed: quiet.changed, unknown: quiet.unknown }).toEqual({ changed: [], unknown: [] });
    expect(quiet.schemaStamps.map((entry) => tableKey(entry.table)).sort()).toEqual(keys(Array.from({ length: TABLES }, (_, index) => ref(index))));
    const xid = await commitAndGetXid(writer, 'insert into t3 values (1, 1); insert into t17 values (1, 1); update t17 set v = 2; insert into t42 values (1, 1)');
    // A change read stops at the snapshot's xmin; wait until the horizon passed the inserts, as a read would.
    const after = await horizonPast(xid);
    const probed = await source.changedTables(everyTableAt(start), WITH_STAMPS);
    expect(keys(probed.changed)).toEqual(keys([ref(3), ref(17), ref(42)]));
    expect(probed.unknown).toEqual([]);
    // From a watermark past those changes, nothing is new.
    const past = await source.changedTables(everyTableAt(after), WITH_STAMPS);
    expect({ changed: past.changed, unknown: past.unknown }).toEqual({ changed: [], unknown: [] });
  });

  it('does not report a change before its transaction commits (a change read could not see it yet)', async () => {
    const from = await horizon();
    await other.query('begin');
    await other.query('insert into t5 values (100, 1)');
    const xid = BigInt((await other.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0].xid);
    try {
      expect((await source.changedTables([{ table: ref(5), version: from }], WITH_STAMPS)).changed).toEqual([]);
    } finally {
      await other.query('commit');
    }
    await horizonPast(xid);
    expect((await source.changedTables([{ table: ref(5), version: from }], WITH_STAMPS)).changed).toEqual([ref(5)]);
  });

  it('stamps each table\'s definition: a column added, dropped or retyped, or a new key, changes the stamp though no row changed', async () => {
    const stampOf = async (index: number) => (await source.changedTables([{ table: ref(index), version: start }], WITH_STAMPS)).schemaStamps[0]?.stamp;
    const first = await stampOf(20);
    expect(first).toEqual(expect.any(String));
    expect(await stampOf(20)).toBe(first);
    // The registry compares each probe's stamp with the one before it (a dropped index may bring an older one back).
    let previous = first;
    for (const ddl of ['alter table t20 add column grade integer not null default 7', 'alter table t20 alter column v type bigint', 'alter table t20 drop column grade', 'create unique index t20_v on t20 (v)', 'drop index t20_v']) {
      await writer.query(ddl);
      const stamp = await stampOf(20);
      expect(stamp).not.toBe(previous);
      previous = stamp;
    }
    // No row of t20 changed: the stamp is what tells the scheduler to describe it again.
    expect((await source.changedTables([{ table: ref(20), version: await horizon() }], WITH_STAMPS)).changed).toEqual([]);
  });

  it('cannot judge a table that is not tracked, one whose change table is gone, or a watermark purged, ahead of the source or malformed', async () => {
    await writer.query(`drop table svc_ct."public.t9"`);
    const probed = await source.changedTables([
      { table: { schema: 'public', name: 'untracked' }, version: start },
      { table: { schema: 'public', name: 'no_such_table' }, version: start },
      { table: ref(9), version: start },
      { table: ref(10), version: '1' },
      { table: ref(11), version: '999999999999' },
      { table: ref(12), version: 'x; drop table t12' },
      { table: ref(13), version: start },
    ], { schemaStamps: false });
    expect(keys(probed.unknown)).toEqual(keys([{ schema: 'public', name: 'untracked' }, { schema: 'public', name: 'no_such_table' }, ref(9), ref(10), ref(11), ref(12)]));
    expect(probed.changed).toEqual([]);
    expect(probed.schemaStamps).toEqual([]);
  });
});

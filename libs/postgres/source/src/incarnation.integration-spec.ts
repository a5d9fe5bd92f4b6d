import { tableKey, type TableDefinition } from '@svc/contracts';
import { SourceIncarnationChangedError, isEngineError, type ReadOptions, type SourceConnector } from '@svc/engines';
import type { Client } from 'pg';
import { createPostgresSource } from './postgres-source';
import { commitAndGetXid } from './testing/change-feed';
import { PrivatePostgres, waitUntil, type PrivateCluster } from '@svc/testing';
import { connect, parseCsv, readAll, sortedRows, withClient, type CsvField } from './testing/source-fixture';

const TABLE = { schema: 'public', name: 'items' };

/**
 * A point-in-time restore of the source cluster. PostgreSQL, "Continuous Archiving and Point-in-Time Recovery
 * (PITR)": "whenever an archive recovery completes, a new timeline is created to identify the series of WAL records
 * generated after that recovery". Its transaction ids go back to the backup's and pass the watermark again with other
 * transactions: Microsoft's Change Tracking restore example (synchronised at 100, restored to 70, updated to 130, a
 * client at 100 reads 100–130 and never learns that 70–100 differ). Versions alone cannot tell; the incarnation stored
 * with the watermark ("<system identifier> timeline <n>") can.
 *
 * Two private clusters (initdb, then a pg_basebackup of it restored at the same address), never the shared server:
 * the test stops a server and restores another over it.
 */
describe('PostgreSQL source: a cluster restored to a point in time (a new timeline) whose transaction ids passed the watermark again', () => {
  let clusters: PrivatePostgres | undefined;
  let primary: PrivateCluster;
  let restored: PrivateCluster;
  let source: SourceConnector | undefined;
  let writer: Client | undefined;
  let items: TableDefinition;

  let systemIdentifier: string;
  let seed: { startVersion: string; sourceIncarnation: string | null; rows: CsvField[][] };
  let onPrimary: ChangesThrough;
  /** The watermark W after the changes read on the primary, and the incarnation stored with it. */
  let watermark: { version: string; incarnation: string };
  let restoredState: { timeline: string; inRecovery: boolean; systemIdentifier: string };
  /** A change the restored cluster made below the watermark: a client at the watermark never reads it. */
  let hiddenXid: bigint;
  let restoredUpdateXid: bigint;

  beforeAll(async () => {
    clusters = PrivatePostgres.create('svc-pg-incarnation-');
    primary = await clusters.initdb('primary');
    await clusters.start(primary);

    // The primary: a tracked table, seeded.
    writer = await connect(primary.url());
    systemIdentifier = (await writer.query<{ id: string }>('select system_identifier::text as id from pg_control_system()')).rows[0].id;
    await writer.query("create table items (id integer primary key, name text); insert into items values (1, 'seed'), (2, 'seed')");
    source = createPostgresSource(primary.url(), { encrypt: false });
    items = (await source.describeTable(TABLE))!;
    await source.enableTracking(items);
    const snapshot = await source.readSnapshot(items);
    seed = { startVersion: snapshot.startVersion, sourceIncarnation: snapshot.sourceIncarnation, rows: sortedRows(parseCsv((await readAll(snapshot)).csv)) };

    // The backup the cluster is later restored from, taken after the seed and before the changes below.
    const backup = await clusters.baseBackup(primary, 'backup');

    // Changes after the backup, read on the primary with the seed's incarnation: the watermark W.
    await commitAndGetXid(writer, "insert into items values (3, 'primary')");
    await commitAndGetXid(writer, "update items set name = 'primary' where id = 1");
    const last = await commitAndGetXid(writer, 'delete from items where id = 2');
    onPrimary = await changesThrough(source, items, seed.startVersion, last, { incarnation: seed.sourceIncarnation ?? '' });
    watermark = { version: onPrimary.toVersion, incarnation: onPrimary.sourceIncarnation ?? '' };

    // The primary is lost; the backup comes up at its address after an archive recovery that ends at once.
    await writer.end();
    writer = undefined;
    await source.close();
    source = undefined;
    await clusters.stop(primary, 'immediate');
    restored = backup;
    clusters.configure(restored, { restore_command: 'false' });
    clusters.writeDataFile(restored, 'recovery.signal');
    await clusters.start(restored);
    await waitUntil(
      () => withClient(restored.url(), async (client) => !(await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby')).rows[0].standby),
      15_000,
      'the restored cluster to end its archive recovery',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${clusters?.logTail(restored)}`);
    });

    writer = await connect(restored.url());
    const state = await writer.query<{ timeline: string; in_recovery: boolean; id: string }>(
      `select substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) as timeline, pg_is_in_recovery() as in_recovery,
        (select system_identifier::text from pg_control_system()) as id`,
    );
    restoredState = { timeline: state.rows[0].timeline, inRecovery: state.rows[0].in_recovery, systemIdentifier: state.rows[0].id };

    // The restored cluster's own history: a change below W (which a read from W skips), transactions until its ids
    // passed W again, and a change above W that differs from the primary's.
    hiddenXid = await commitAndGetXid(writer, "insert into items values (5, 'restored, below the watermark')");
    for (let burnt = 0; BigInt(await currentXmin(writer)) <= BigInt(watermark.version); burnt += 1) {
      if (burnt > 10_000) throw new Error(`the restored cluster's transaction ids did not pass the watermark ${watermark.version}`);
      await writer.query('select pg_current_xact_id()');
    }
    restoredUpdateXid = await commitAndGetXid(writer, "update items set name = 'restored' where id = 1");
    source = createPostgresSource(restored.url(), { encrypt: false });
  }, 50_000);

  afterAll(async () => {
    await writer?.end().catch(() => undefined);
    // A pool waits for connections still checked out (a failed test's unread stream): the servers go regardless.
    await Promise.race([source?.close().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    await clusters?.remove();
  }, 40_000);

  describe('while the cluster that was seeded runs on', () => {
    it('names its incarnation by the system identifier and timeline 1 when seeding', () => {
      expect(seed.sourceIncarnation).toBe(`${systemIdentifier} timeline 1`);
      expect(seed.rows).toEqual([
        ['1', 'seed'],
        ['2', 'seed'],
      ]);
    });

    it('reads changes from the seed with its incarnation, and returns the same incarnation with the watermark', () => {
      expect(onPrimary.sourceIncarnation).toBe(seed.sourceIncarnation);
      expect(onPrimary.rows).toEqual([
        ['D', '2', null],
        ['I', '3', 'primary'],
        ['U', '1', 'primary'],
      ]);
    });
  });

  describe('after the archive recovery of a backup taken before the watermark', () => {
    it('is the same system on a new timeline, 2, writable, with transaction ids back below the watermark and then past it', () => {
      expect(restoredState).toEqual({ timeline: '00000002', inRecovery: false, systemIdentifier });
      expect(hiddenXid).toBeLessThan(BigInt(watermark.version));
      expect(restoredUpdateXid).toBeGreaterThanOrEqual(BigInt(watermark.version));
    });

    it('refuses a change read from the watermark stored with the old incarnation: SourceIncarnationChangedError, a changes-purged error naming the table', async () => {
      const error: unknown = await source!.readChanges(items, watermark.version, 1000, { incarnation: watermark.incarnation }).then(
        // A read that wrongly succeeds holds its connection until its stream is read.
        async (read) => new Error(`the change read did not fail; it read ${(await readAll(read)).rowCount} changes`),
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(SourceIncarnationChangedError);
      expect(isEngineError(error, 'changes-purged')).toBe(true);
      expect((error as SourceIncarnationChangedError).message).toContain(tableKey(TABLE)); // [public].[items]
      expect(error).toMatchObject({ watermarkIncarnation: `${systemIdentifier} timeline 1`, currentIncarnation: `${systemIdentifier} timeline 2` });
    });

    it('without the incarnation, reads from the watermark without failing and silently misses what the restore changed (the loss the incarnation check closes)', async () => {
      const read = await changesThrough(source!, items, watermark.version, restoredUpdateXid, {});
      expect(read.sourceIncarnation).toBe(`${systemIdentifier} timeline 2`);
      // Only the update above W: nothing says that 2 is back (the primary's delete was undone), 3 is gone (its insert
      // was undone) or 5 was inserted below W. A replica applying this read keeps 3 and lacks 2 and 5.
      expect(read.rows).toEqual([['U', '1', 'restored']]);
      const live = await writer!.query<{ id: number; name: string }>('select id, name from items order by id');
      expect(live.rows).toEqual([
        { id: 1, name: 'restored' },
        { id: 2, name: 'seed' },
        { id: 5, name: 'restored, below the watermark' },
      ]);
    });

    it('puts the table in unknown in the changed-tables probe when its watermark carries the old incarnation (in changed without one)', async () => {
      const withIncarnation = await source!.changedTables([{ table: items.table, version: watermark.version, incarnation: watermark.incarnation }], { schemaStamps: false });
      expect(withIncarnation).toMatchObject({ changed: [], unknown: [items.table] });
      const withoutIncarnation = await source!.changedTables([{ table: items.table, version: watermark.version }], { schemaStamps: false });
      expect(withoutIncarnation).toMatchObject({ changed: [items.table], unknown: [] });
    });

    it('reseeds with the new incarnation, and reads changes with it', async () => {
      const snapshot = await source!.readSnapshot(items);
      const rows = sortedRows(parseCsv((await readAll(snapshot)).csv));
      expect(snapshot.sourceIncarnation).toBe(`${systemIdentifier} timeline 2`);
      expect(rows).toEqual([
        ['1', 'restored'],
        ['2', 'seed'],
        ['5', 'restored, below the watermark'],
      ]);
      const xid = await commitAndGetXid(writer!, "update items set name = 'after the reseed' where id = 2");
      const read = await changesThrough(source!, items, snapshot.startVersion, xid, { incarnation: snapshot.sourceIncarnation ?? '' });
      expect(read.rows).toEqual([['U', '2', 'after the reseed']]);
    });
  });
});

interface ChangesThrough {
  toVersion: string;
  sourceIncarnation: string | null;
  /** Sorted. */
  rows: CsvField[][];
}

/** Reads changes from `from` until the read covers transaction `xid` (the horizon may lag a moment behind a commit). */
async function changesThrough(source: SourceConnector, definition: TableDefinition, from: string, xid: bigint, options: ReadOptions): Promise<ChangesThrough> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const read = await source.readChanges(definition, from, 1000, options);
    const rows = sortedRows(parseCsv((await readAll(read)).csv));
    if (BigInt(read.toVersion) > xid) return { toVersion: read.toVersion, sourceIncarnation: read.sourceIncarnation, rows };
    if (Date.now() > deadline) throw new Error(`change reads from ${from} did not pass transaction ${xid}; the last ended at ${read.toVersion}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function currentXmin(client: Client): Promise<string> {
  return (await client.query<{ xmin: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as xmin')).rows[0].xmin;
}

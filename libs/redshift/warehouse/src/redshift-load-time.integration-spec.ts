import { Portable, type BatchDescriptor, type StagedFiles, type TableDefinition } from '@svc/contracts';
import type { WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { createTempDatabase, holdStatement, waitForLockWaiters, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { RedshiftOnPostgresClient } from './redshift-on-postgres';
import { MemoryParts, redshiftOnPostgres } from './testing/redshift-on-postgres-warehouse';

/**
 * Load times and concurrent loads on the test hook's Redshift (redshift-on-postgres.ts), under each isolation level a
 * Redshift database runs (redshift-on-postgres-isolation.ts): SNAPSHOT, the default of clusters and workgroups created
 * since May 2024, and SERIALIZABLE. The database's sessions start in a time zone other than UTC, as a user's do on
 * Redshift after "ALTER USER … SET TIMEZONE", which "changes the time zone for subsequent sessions"
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_timezone_config.html); here the database's default, which
 * PostgreSQL gives every new session alike. SYSDATE "returns the current date and time in the current session time
 * zone" and "the start date and time for the current transaction, not for the start of the current statement"
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_SYSDATE.html).
 */
const USER_TIME_ZONE = 'Pacific/Honolulu';
const HOUR_MS = 3_600_000;

const codes: TableDefinition = {
  table: { schema: 'public', name: 'codes' },
  columns: [
    { name: 'code', sourceType: 'text', portableType: Portable.text(), nullable: false },
    { name: 'label', sourceType: 'text', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['code'],
  estimatedRows: 0,
};

interface Version {
  label: string;
  valid_from: string;
  valid_to: string | null;
  is_current: boolean;
}

describe.each([
  ['SNAPSHOT', null],
  ['SERIALIZABLE', 'serializable'],
] as const)('the Redshift dialect on a %s database whose sessions start outside UTC', (_level, isolation) => {
  let database: TempDatabase;
  let sql: Client;
  let warehouse: WarehouseConnector;
  const parts = new MemoryParts();
  let batchCount = 0;
  let schemaCount = 0;

  beforeAll(async () => {
    database = await createTempDatabase('rs_time');
    const setup = new Client({ connectionString: database.url });
    await setup.connect();
    await setup.query(`ALTER DATABASE "${database.name}" SET timezone TO '${USER_TIME_ZONE}'`);
    if (isolation !== null) await setup.query(`ALTER DATABASE "${database.name}" SET default_transaction_isolation TO '${isolation}'`);
    await setup.end();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
    warehouse = redshiftOnPostgres(database.url);
  });

  afterAll(async () => {
    await warehouse.close();
    await sql.end();
    await database.drop();
  });

  function where(): WarehouseTableOptions {
    schemaCount += 1;
    return { schema: `rs_time_${schemaCount}`, scdType: 'Type2', addUpdateTimestamp: true };
  }

  function load(loader: WarehouseConnector, csv: string, options: WarehouseTableOptions): Promise<unknown> {
    batchCount += 1;
    const batch: BatchDescriptor = { batchId: `codes:${batchCount}`, replicationId: 'r1', epoch: 1, definition: codes, body: { kind: 'changes', fromVersion: String(batchCount), toVersion: String(batchCount + 1) } };
    const key = `files/${batch.batchId}/part-00000.csv.gz`;
    parts.put(key, csv);
    const files: StagedFiles = { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [key] };
    return loader.loadBatch(batch, files, parts, options);
  }

  async function versions(options: WarehouseTableOptions): Promise<Version[]> {
    const result = await sql.query<Version>(
      `SELECT label, svc_sys_valid_from::text AS valid_from, svc_sys_valid_to::text AS valid_to, svc_sys_is_current AS is_current
       FROM ${options.schema}.codes ORDER BY svc_sys_row_id`,
    );
    return result.rows;
  }

  /** Each version ends where the next begins, after it began; only the last is current. */
  function expectOneHistory(history: readonly Version[]): void {
    history.forEach((version, index) => {
      const next = history[index + 1];
      expect({ label: version.label, current: version.is_current }).toEqual({ label: version.label, current: next === undefined });
      if (next === undefined) return;
      expect({ label: version.label, endsAfterItBegins: version.valid_to !== null && version.valid_to > version.valid_from }).toEqual({ label: version.label, endsAfterItBegins: true });
      expect({ label: version.label, endsWhereNextBegins: version.valid_to }).toEqual({ label: version.label, endsWhereNextBegins: next.valid_from });
    });
  }

  it("the double's sessions start in the user's time zone", async () => {
    const probe: Client = new RedshiftOnPostgresClient({ connectionString: database.url });
    await probe.connect();
    try {
      expect((await probe.query<{ TimeZone: string }>('SHOW timezone')).rows[0]).toEqual({ TimeZone: USER_TIME_ZONE });
    } finally {
      await probe.end();
    }
  });

  it('stamps versions in UTC and forgets batches by a UTC cut-off, whatever time zone the user has', async () => {
    const options = where();
    await warehouse.ensureTable(codes, options);
    const before = Date.now();
    await load(warehouse, `"I","k","one"\n`, options);
    const [version] = await versions(options);
    const stamped = Date.parse(`${(version?.valid_from ?? '').replace(' ', 'T')}Z`);
    expect(Math.abs(stamped - before)).toBeLessThan(5 * 60_000);
    // Loaded a moment ago: a cut-off an hour back forgets nothing.
    expect(await warehouse.forgetLoadedBatches(new Date(Date.now() - HOUR_MS), options)).toBe(0);
    expect(await warehouse.hasLoaded(`codes:${batchCount}`, options)).toBe(true);
  });

  it('a load whose transaction started first but got the lock second stamps after the load it waited for', async () => {
    const options = where();
    const first = redshiftOnPostgres(database.url);
    const second = redshiftOnPostgres(database.url);
    try {
      await warehouse.ensureTable(codes, options);
      await load(warehouse, `"I","k","one"\n`, options);
      // The later load's BEGIN reaches the server, then its LOCK is held back (a slow network path) while the
      // other load begins later, takes the lock, merges and commits.
      const held = holdStatement((text) => text === `LOCK "${options.schema}"."svc_sys_ctl_codes"`);
      try {
        const late = load(second, `"U","k","three"\n`, options);
        expect(await Promise.race([held.reached.then(() => 'held'), late.then(() => 'ended', () => 'failed')])).toBe('held');
        await load(first, `"U","k","two"\n`, options);
        held.release();
        await late;
      } finally {
        held.restore();
      }
      const history = await versions(options);
      expect(history.map((version) => version.label)).toEqual(['one', 'two', 'three']);
      expectOneHistory(history);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('loaders merging into one table at once leave one history: each load waits for the lock of the one before', async () => {
    const options = where();
    const loaders = Array.from({ length: 4 }, () => redshiftOnPostgres(database.url));
    try {
      await warehouse.ensureTable(codes, options);
      await load(warehouse, `"I","k","v0"\n"I","j","w0"\n`, options);
      const outcomes = await Promise.all(loaders.map((loader, index) => load(loader, `"U","k","v${index + 1}"\n"U","j","w${index + 1}"\n`, options)));
      expect(outcomes).toEqual(loaders.map(() => ({ applied: true, rowCount: 2 })));
      const history = await versions(options);
      expectOneHistory(history.filter((version) => version.label.startsWith('v')));
      expectOneHistory(history.filter((version) => version.label.startsWith('w')));
    } finally {
      await Promise.all(loaders.map((loader) => loader.close()));
    }
  });

  it("the double's isolation: without a lock, two transactions each adding the current version a read found missing", async () => {
    await sql.query('CREATE TABLE probe_versions (k VARCHAR(8), is_current BOOLEAN)');
    const sessions = [0, 1].map((): Client => new RedshiftOnPostgresClient({ connectionString: database.url }));
    await Promise.all(sessions.map((session) => session.connect()));
    const [one, two] = sessions as [Client, Client];
    const addIfMissing = async (session: Client) => {
      const found = await session.query<{ n: number }>(`SELECT count(*)::int AS n FROM probe_versions WHERE k = 'k' AND is_current`);
      if (found.rows[0]?.n === 0) await session.query(`INSERT INTO probe_versions VALUES ('k', true)`);
    };
    try {
      // Interleaved: both read before either writes.
      await one.query('BEGIN');
      await two.query('BEGIN');
      await one.query(`SELECT count(*) FROM probe_versions`);
      await two.query(`SELECT count(*) FROM probe_versions`);
      const outcome = await Promise.allSettled([addIfMissing(one).then(() => one.query('COMMIT')), addIfMissing(two).then(() => two.query('COMMIT'))]);
      const failures = outcome.filter((result): result is PromiseRejectedResult => result.status === 'rejected').map((result) => result.reason as { code?: string; message?: string; detail?: string });
      const rows = (await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM probe_versions`)).rows[0]?.n;
      if (isolation === null) {
        // SNAPSHOT: "concurrent modifications to different rows in the same table would complete successfully".
        expect({ failures, rows }).toEqual({ failures: [], rows: 2 });
      } else {
        // SERIALIZABLE: one of them "could fail", as Redshift reports it: ERROR:1023 DETAIL: Serializable isolation violation.
        expect(failures.map(({ code, message }) => ({ code, message }))).toEqual([{ code: 'XX000', message: '1023' }]);
        expect(failures[0]?.detail).toMatch(/^Serializable isolation violation on table/);
        expect(rows).toBe(1);
      }
      await Promise.all(sessions.map((session) => session.query('ROLLBACK')));

      // With LOCK first, as every load takes its table's: the second waits, then reads what the first committed.
      await sql.query('DELETE FROM probe_versions');
      await one.query('BEGIN');
      await one.query('LOCK probe_versions');
      await addIfMissing(one);
      await two.query('BEGIN');
      const waiting = two.query('LOCK probe_versions');
      await waitForLockWaiters(sql, 1, 'the second session to wait for the lock');
      await one.query('COMMIT');
      await waiting;
      await addIfMissing(two);
      await two.query('COMMIT');
      expect((await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM probe_versions`)).rows[0]?.n).toBe(1);
    } finally {
      await Promise.all(sessions.map((session) => session.end()));
    }
  });
});

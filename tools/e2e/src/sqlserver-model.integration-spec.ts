import { randomUUID } from 'node:crypto';
import { CHANGE_TRACKING_MODEL_SCHEMA as MODEL, storedText } from '@svc/sqlserver/on-postgres';
import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { ENGINE_PAIRS, enginePairNamed } from './engine-pairs';
import { describeReplication, recentWarnings } from './replication-api';

/*
 * What only SQL Server's source holds, through the pair the generic suite runs it in without a SQL Server: SQL Server
 * modelled on PostgreSQL (libs/sqlserver/on-postgres) → the Redshift dialect executed on PostgreSQL. Issue 37's
 * done-when, end to end through the services:
 *   - datetime2(7) and datetimeoffset(7), which style 121 writes with seven fractional digits, and the datetimeoffset
 *     with a space before its offset ("CAST and CONVERT", date and time styles), reach Redshift's COPY in a form AWS
 *     lists ("DATEFORMAT and TIMEFORMAT strings": fractional seconds "up to a microsecond"), and land to the microsecond;
 *   - a key holding half of a surrogate pair ('a' + NCHAR(0xD800)) stops its table, named, instead of arriving as U+FFFD;
 *   - a database restored to a version before the watermark and then written past it ("Change Tracking and data
 *     restore": restored to 70, updated to 130, a client at 100 "validates this number successfully") is reseeded, because
 *     its incarnation moved.
 */
const PAIR = enginePairNamed('SQL Server modelled on PostgreSQL (not a real SQL Server) → Redshift dialect executed on PostgreSQL (not a real Redshift)', ENGINE_PAIRS);

const INSTANTS = '[dbo].[instants]';
const NAMES = '[dbo].[names]';

describe('SQL Server modelled on PostgreSQL → the Redshift dialect: what only SQL Server holds', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', WORKER_CONCURRENCY: '2', ...PAIR.stackEnv },
  });
  let source: Client;
  let warehouse: Client;
  let replicationId = '';

  /** The instants as text to the microsecond, UTC, by id: source and warehouse spelled alike. */
  const instantsSql = (table: string) => `SELECT id::text, to_char(at_local, 'YYYY-MM-DD HH24:MI:SS.US') AS at_local,
    to_char(at_offset AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS at_offset FROM ${table} ORDER BY id`;
  const sourceInstants = async () => (await source.query(instantsSql('dbo.instants'))).rows as unknown[];
  const warehouseInstants = async () => (await warehouse.query(instantsSql('dw.instants')).catch(() => ({ rows: [] as unknown[] }))).rows;

  const diagnostics = async () => `${JSON.stringify((await describeReplication(stack, replicationId)).tables)}\n${recentWarnings(stack).join('\n')}`;
  const converged = async (what: string) => {
    try {
      await waitUntil(async () => JSON.stringify(await sourceInstants()) === JSON.stringify(await warehouseInstants()), 90000, what);
    } catch (error) {
      throw new Error(`${String(error)}\nsource ${JSON.stringify(await sourceInstants())}\nwarehouse ${JSON.stringify(await warehouseInstants())}\n${await diagnostics()}`, { cause: error });
    }
  };
  const tableStatus = async (name: string) => (await describeReplication(stack, replicationId)).tables.find((table) => table.name === name);

  beforeAll(async () => {
    await stack.start();
    // The source session installs the model (Change Tracking, the T-SQL runtime) in the stack's source database.
    await (await PAIR.openSource(stack)).close();
    source = new Client({ connectionString: stack.source.url });
    warehouse = new Client({ connectionString: stack.warehouse.url });
    await Promise.all([source.connect(), warehouse.connect()]);
    await source.query(`CREATE SCHEMA IF NOT EXISTS dbo;
      CREATE TABLE dbo.instants (id integer PRIMARY KEY, at_local tsql.datetime2_7, at_offset tsql.datetimeoffset_7);
      INSERT INTO dbo.instants VALUES
        (1, '2026-03-01 12:34:56.123456', '2026-03-01 12:34:56.654321+00'),
        (2, '0001-01-01 00:00:00', '9999-12-31 23:59:59.999999+00'),
        (3, NULL, NULL);
      CREATE TABLE dbo.names (code varchar(20) PRIMARY KEY, label text);
      INSERT INTO dbo.names VALUES ('plain', 'kept');`);
    const body = {
      parallelTablesLimit: 2,
      rebuildIndexes: false,
      source: { connectionString: PAIR.sourceConnectionString(stack), encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
      staging: { connectionString: PAIR.stagingConnectionString(stack), encryptDataInTransit: false, replicateCompatibilityLevel: false },
      warehouse: {
        accessType: 'AccessKey',
        accessKey: stack.s3.accessKeyId,
        secretKey: stack.s3.secretAccessKey,
        bucketName: 'sqlserver-model',
        bucketFolderName: '/dw',
        regionEndpoint: 'us-east-1',
        retentionDays: 2,
        ...PAIR.warehouse(stack),
        databaseSchema: 'dw',
        scdType: 'Type1',
      },
      addUpdateTimestamp: false,
      tablesToInclude: 'All',
    };
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    if (response.status !== 200) throw new Error(`Create answered ${response.status}: ${response.body}`);
    replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
  }, 120000);

  afterAll(async () => {
    await Promise.allSettled([source?.end(), warehouse?.end()]);
    await stack.stop();
  }, 60000);

  it('seeds datetime2(7) and datetimeoffset(7), written with seven digits and a spaced offset, to the microsecond, and follows their changes', async () => {
    // What the source's read sends for them: the SQL Server text the COPY must not see as it is.
    const [row] = (
      await source.query(`SELECT tsql.to_text(at_local, 121) AS at_local, tsql.to_text(at_offset, 121) AS at_offset FROM dbo.instants WHERE id = 1`)
    ).rows as { at_local: string; at_offset: string }[];
    expect(row).toEqual({ at_local: '2026-03-01 12:34:56.1234560', at_offset: '2026-03-01 12:34:56.6543210 +00:00' });
    await converged('the seeded instants in the warehouse');
    await source.query(`UPDATE dbo.instants SET at_local = '2026-03-02 00:00:00.000001', at_offset = '2026-03-02 23:59:59.999999+00' WHERE id = 1;
      INSERT INTO dbo.instants VALUES (4, '2026-03-04 04:04:04.4', '2026-03-04 04:04:04.04+00')`);
    await converged('the changed instants in the warehouse');
  }, 150000);

  it('stops a table whose key holds half of a surrogate pair, naming table and column, and loads no U+FFFD', async () => {
    await source.query('INSERT INTO dbo.names VALUES ($1, $2)', [storedText('a\uD800'), 'half']);
    await waitUntil(async () => (await tableStatus(NAMES))?.phase === 'Error', 90000, `${NAMES} stopped`);
    const stopped = await tableStatus(NAMES);
    expect(stopped?.lastError).toContain(NAMES);
    expect(stopped?.lastError).toContain('column code');
    expect(stopped?.lastError).toContain('half of a UTF-16 surrogate pair');
    // U+FFFD's UTF-8 bytes, looked for in the bytes (the dialect's text compares under a collation LIKE refuses).
    const replacement = await warehouse.query("SELECT count(*)::int AS n FROM dw.names WHERE position('\\xefbfbd'::bytea IN convert_to(code, 'UTF8')) > 0");
    expect((replacement.rows as { n: number }[])[0]?.n).toBe(0);
    // The other table goes on.
    await source.query("UPDATE dbo.instants SET at_local = '2026-03-05 05:05:05.5' WHERE id = 3");
    await converged('the instants after the stopped table');
  }, 150000);

  it('reseeds a table whose database was restored to before its watermark and written past it since (its incarnation moved)', async () => {
    await source.query('CREATE TEMPORARY TABLE backup_instants AS SELECT * FROM dbo.instants');
    const backupVersion = String(((await source.query(`SELECT ${MODEL}.change_tracking_current_version() AS v`)).rows as { v: string }[])[0]?.v);
    // Three transactions after the backup reach the warehouse: its watermark is past the backup's version.
    for (const label of ['one', 'two', 'three']) await source.query(`UPDATE dbo.instants SET at_local = at_local + interval '1 day' WHERE id = 1 -- ${label}`);
    await converged('the changes made after the backup');
    // The restore: the rows and the versions as they were at the backup, under a new recovery fork.
    await source.query(`BEGIN;
      SET LOCAL session_replication_role = replica;
      DELETE FROM dbo.instants;
      INSERT INTO dbo.instants SELECT * FROM backup_instants;
      SELECT ${MODEL}.restore_versions_to(${backupVersion});
      UPDATE ${MODEL}.database_state SET incarnation = 'recovery fork ${randomUUID().toUpperCase()}, database ${randomUUID().toUpperCase()}';
      COMMIT;`);
    // More transactions than were lost: the database's version passes the watermark again, so only the incarnation tells.
    for (const id of [1, 2, 3, 4, 5]) await source.query(`UPDATE dbo.instants SET at_offset = '2026-06-0${id} 06:06:06.06+00' WHERE id = ${Math.min(id, 4)}`);
    await waitUntil(
      async () => (await describeReplication(stack, replicationId)).alerts.some((alert) => alert.kind === 'Reseed' && alert.message.includes(INSTANTS) && alert.message.includes('not the one its watermark was read from')),
      90000,
      'a Reseed alert for the restored database',
    );
    await converged('the restored and rewritten instants in the warehouse');
  }, 180000);
});

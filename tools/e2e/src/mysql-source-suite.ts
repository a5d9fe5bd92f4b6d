import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { createConnection } from 'mysql2/promise';
import type { EnginePair, SourceSession, WarehouseSession } from './engine-pairs';
import { describeReplication as describeThroughApi, recentWarnings } from './replication-api';
import { keyIs, transaction, update } from './suite/changes';
import { asWarehouseHolds } from './suite/declared-losses';
import { EDGE_CASES } from './suite/edge-cases';
import { AUDIT_LOG, ITEMS, ORDER_LINES, mixedWorkload, pipelineTables } from './suite/pipeline-tables';
import { digestOf, tableLabel, withColumn, type TableSpec } from './suite/table-spec';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A table of every MySQL type the issue lists, in a database of its own, written with MariaDB's own SQL. */
const EVERY_TYPE_SQL = `CREATE TABLE types_db.every_type (
  id BIGINT UNSIGNED PRIMARY KEY,
  small_signed TINYINT, small_unsigned TINYINT UNSIGNED, whole INT UNSIGNED, big BIGINT,
  exact DECIMAL(65,30), single FLOAT, dbl DOUBLE,
  flag BIT(1), bits BIT(10), yr YEAR,
  day DATE, moment DATETIME(6), stamp TIMESTAMP(3) NULL, span TIME(2),
  fixed CHAR(4), name VARCHAR(20) CHARACTER SET utf8mb3, latin VARCHAR(10) CHARACTER SET latin1, body TEXT, binname VARCHAR(10) COLLATE utf8mb4_bin,
  size ENUM('small','large'), tags SET('a','b','c'), doc JSON, shape GEOMETRY, raw VARBINARY(8), pad BINARY(4), blobby BLOB
)`;
const EVERY_TYPE_ROWS = `INSERT INTO types_db.every_type VALUES
  (18446744073709551615, -128, 255, 4294967295, -9223372036854775808,
   '-12345678901234567890123456789012345.123456789012345678901234567890', 1.2345678, 0.30000000000000004e0,
   b'1', b'1010101010', 2155, '2024-02-29', '2024-02-29 23:59:59.999999', '2038-01-19 03:14:07.5', '-838:59:59.99',
   'ab', 'żółw', 'café', 'line1\\nline2, "quoted"', 'ABC', 'large', 'a,c', '{"k": [1, 2.50]}', ST_GeomFromText('POINT(1 2)'), 0x00ff, 0x01, ''),
  (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, b'0', NULL, 0, '0000-00-00', '2024-00-10 00:00:00', NULL, '00:00:00', '', '', '', '', '', NULL, '', NULL, NULL, NULL, NULL, NULL)`;
const EVERY_TYPE_COLUMNS = ['id', 'small_signed', 'small_unsigned', 'whole', 'big', 'exact', 'single', 'dbl', 'flag', 'bits', 'yr', 'day', 'moment', 'stamp', 'span', 'fixed', 'name', 'latin', 'body', 'binname', 'size', 'tags', 'doc', 'shape', 'raw', 'pad', 'blobby'];

/**
 * A MySQL-family source into a warehouse, through the signed API against the real services, NATS, an S3 server, a
 * private mariadbd with its binary log, and the warehouse: the suite's engine-neutral tables seeded and followed through
 * a mixed workload (key updates and a multi-row transaction among it), an added column, purged logs and a TRUNCATE; and
 * a table of every MySQL type whose values the PostgreSQL warehouse must hold exactly.
 */
export function mysqlSourceSuite(pair: EnginePair): void {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536', ...pair.stackEnv },
  });
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let type1Id = '';
  let type2Id = '';
  const tables = pipelineTables(pair.bigTextCharacters, pair.sourceLosses);
  const NOTE = { name: 'note', type: 'varchar(40)' } as const;
  const LINES_WITH_NOTE = withColumn(ORDER_LINES, NOTE);

  const createReplication = async (schema: string, scdType: 'Type1' | 'Type2') => {
    const body = {
      parallelTablesLimit: 4,
      rebuildIndexes: false,
      source: { connectionString: pair.sourceConnectionString(stack), encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
      staging: { connectionString: pair.stagingConnectionString(stack), encryptDataInTransit: false, replicateCompatibilityLevel: false },
      warehouse: {
        accessType: 'AccessKey',
        accessKey: stack.s3.accessKeyId,
        secretKey: stack.s3.secretAccessKey,
        bucketName: 'mysql-suite',
        bucketFolderName: `/${schema}`,
        regionEndpoint: 'us-east-1',
        retentionDays: 2,
        ...pair.warehouse(stack),
        databaseSchema: schema,
        scdType,
      },
      addUpdateTimestamp: false,
      tablesToInclude: 'All',
    };
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect({ status: response.status, body: response.status === 200 ? '' : response.body }).toEqual({ status: 200, body: '' });
    return (JSON.parse(response.body) as { replicationId: string; note?: string }).replicationId;
  };
  const describeReplication = (id: string) => describeThroughApi(stack, id);

  const diagnostics = async () => {
    const states = await Promise.all([type1Id, type2Id].filter(Boolean).map((id) => describeReplication(id).catch(() => null)));
    return `${JSON.stringify(states.map((state) => state && { status: state.status, tables: state.tables, alerts: state.alerts }))}\n${recentWarnings(stack).join('\n')}`;
  };

  /** Waits until the warehouse holds exactly the source's rows (Type1 in `dw`) and current rows (Type2 in `hist`). */
  const converged = async (specs: TableSpec[], deadlineMs = 120_000) => {
    let last = '';
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      let equal = true;
      for (const spec of specs) {
        const expected = digestOf(asWarehouseHolds(spec, await source.readRows(spec), pair.warehouseLosses));
        const [t1, t2] = await Promise.all([warehouse.digest('dw', spec).catch(() => null), warehouse.digest('hist', spec, 'current').catch(() => null)]);
        last = `${tableLabel(spec)}: source ${JSON.stringify(expected)} type1 ${JSON.stringify(t1)} type2 ${JSON.stringify(t2)}`;
        if (JSON.stringify(t1) !== JSON.stringify(expected) || JSON.stringify(t2) !== JSON.stringify(expected)) {
          equal = false;
          break;
        }
      }
      if (equal) return;
      if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for the warehouse to equal the source\nlast comparison: ${last}\n${await diagnostics()}`);
      await sleep(500);
    }
  };

  const reseedAlerted = async (table: string, already: number) =>
    waitUntil(async () => (await describeReplication(type1Id)).alerts.filter((alert) => alert.kind === 'Reseed' && alert.message.includes(table)).length > already, 90_000, `a Reseed alert for ${table}`);
  const reseedAlerts = async (table: string) => (await describeReplication(type1Id)).alerts.filter((alert) => alert.kind === 'Reseed' && alert.message.includes(table)).length;

  /** Runs MariaDB's own SQL on the stack's source server as root. */
  const sourceSql = async (sql: string) => {
    const connection = await createConnection({ uri: pair.sourceConnectionString(stack), multipleStatements: true });
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  };

  beforeAll(async () => {
    await stack.start();
    source = await pair.openSource(stack);
    warehouse = await pair.openWarehouse(stack);
    await source.createTables(tables);
    await sourceSql(`SET SESSION sql_mode = ''; CREATE DATABASE types_db; ${EVERY_TYPE_SQL}; ${EVERY_TYPE_ROWS}`);
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60_000);

  it('seeds every table of every database: keyed tables Tracking, the table without a key Untracked', async () => {
    type1Id = await createReplication('dw', 'Type1');
    type2Id = await createReplication('hist', 'Type2');
    await waitUntil(
      async () => {
        const [one, two] = await Promise.all([describeReplication(type1Id), describeReplication(type2Id)]);
        const phases = [...one.tables, ...two.tables].map((table) => table.phase);
        return phases.length === 10 && phases.every((phase) => phase === 'Tracking' || phase === 'Untracked');
      },
      150_000,
      'both replications to finish seeding',
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\n${await diagnostics()}`);
    });
    const described = await describeReplication(type1Id);
    expect(Object.fromEntries(described.tables.map((table) => [table.name, table.phase]))).toEqual({
      [pair.tableName('public', 'audit_log')]: 'Untracked',
      [pair.tableName('public', 'items')]: 'Tracking',
      [pair.tableName('sales', 'order_lines')]: 'Tracking',
      [pair.tableName(EDGE_CASES.schema, EDGE_CASES.name)]: 'Tracking',
      [pair.tableName('types_db', 'every_type')]: 'Tracking',
    });
    await converged([ITEMS, ORDER_LINES, AUDIT_LOG, EDGE_CASES]);
  }, 240_000);

  const wherePostgresWarehouse = pair.name.endsWith('→ PostgreSQL') ? it : it.skip;
  wherePostgresWarehouse(`holds every MySQL type's values exactly in the PostgreSQL warehouse, seeded and changed${pair.name.endsWith('→ PostgreSQL') ? '' : ' (not run: its expectations are PostgreSQL\'s texts)'}`, async () => {
    const read = async () =>
      warehouse.query<Record<string, string | null>>(
        `SELECT ${EVERY_TYPE_COLUMNS.map((column) => (column === 'stamp' ? `to_char(stamp AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS stamp` : `${column}::text AS ${column}`)).join(', ')} FROM dw.types_db_every_type AS t ORDER BY t.id`,
      );
    const expectedFirst = {
      id: '18446744073709551615',
      small_signed: '-128',
      small_unsigned: '255',
      whole: '4294967295',
      big: '-9223372036854775808',
      exact: '-12345678901234567890123456789012345.123456789012345678901234567890',
      single: '1.2345678',
      dbl: '0.30000000000000004',
      flag: 'true',
      bits: '\\x02aa',
      yr: '2155',
      day: '2024-02-29',
      moment: '2024-02-29 23:59:59.999999',
      stamp: '2038-01-19 03:14:07.500',
      span: '-838:59:59.99',
      fixed: 'ab',
      name: 'żółw',
      latin: 'café',
      body: 'line1\nline2, "quoted"',
      binname: 'ABC',
      size: 'large',
      tags: 'a,c',
      doc: '{"k": [1, 2.50]}',
      shape: '\\x000000000101000000000000000000f03f0000000000000040',
      raw: '\\x00ff',
      pad: '\\x01000000',
      blobby: '\\x',
    };
    const expectedZeroes = { id: '1', flag: 'false', yr: '0', day: null, moment: null, span: '00:00:00', fixed: '', size: null, tags: '', doc: null };
    await waitUntil(async () => (await read().catch(() => [])).length === 2, 60_000, 'the every-type table in the warehouse');
    const [zeroes, first] = await read();
    expect(first).toEqual(expectedFirst);
    expect(zeroes).toMatchObject(expectedZeroes);
    await sourceSql(
      `UPDATE types_db.every_type SET exact = 0.000000000000000000000000000001, single = -1.5e38, span = '838:59:59', stamp = '1970-01-01 00:00:01', bits = b'1', flag = b'1' WHERE id = 1;
       UPDATE types_db.every_type SET id = 2 WHERE id = 1`,
    );
    await waitUntil(async () => (await read().catch(() => []))[0]?.['id'] === '2', 60_000, 'the key update of the every-type table').catch(async (error: unknown) => {
      throw new Error(`${String(error)}: the warehouse holds ${JSON.stringify(await read().catch((failure: unknown) => String(failure)))}\n${await diagnostics()}`);
    });
    const [changed] = await read();
    expect(changed).toMatchObject({ id: '2', exact: '0.000000000000000000000000000001', single: '-1.5e+38', span: '838:59:59', stamp: '1970-01-01 00:00:01.000', bits: '\\x0001', flag: 'true' });
    expect((await read()).length).toBe(2);
  }, 180_000);

  it('follows a mixed workload: a multi-row transaction, key updates in both tables, NULLs, big values, and a transaction that commits after later ones', async () => {
    for (const work of mixedWorkload(pair.bigTextCharacters)) await source.apply(work);
    const late = await pair.openSource(stack);
    try {
      await late.begin(transaction(update(ITEMS, { name: 'committed late' }, keyIs('id', 500))));
      await source.apply(transaction(update(ITEMS, { name: 'committed early' }, keyIs('id', 501))));
      await sleep(2000);
      await late.commit();
    } finally {
      await late.close();
    }
    await converged([ITEMS, ORDER_LINES]);
  }, 180_000);

  it('adds a column added in the source (ALTER TABLE … ADD COLUMN in the binary log) to the warehouse', async () => {
    await source.addColumn(ORDER_LINES, NOTE);
    await source.apply(transaction(update(LINES_WITH_NOTE, { note: 'added later' }, keyIs('order_id', 2))));
    await converged([LINES_WITH_NOTE]);
  }, 120_000);

  // The reseeds below do not depend on the warehouse: they run into PostgreSQL only (npm test's time budget).
  const whereReseedsRun = pair.name.endsWith('→ PostgreSQL') ? it : it.skip;
  whereReseedsRun(`reseeds, with an alert, a table whose position in the binary log was purged${pair.name.endsWith('→ PostgreSQL') ? '' : ' (not run: it runs into PostgreSQL)'}`, async () => {
    const items = pair.tableName('public', 'items');
    const before = await reseedAlerts(items);
    if (!source.expireChanges) throw new Error('the MariaDB source session purges logs');
    // With the extractor stopped, no cycle moves a watermark into the new file before the old ones go.
    await stack.stopService('extractor');
    await source.apply(transaction(update(ITEMS, { name: 'after the purge' }, keyIs('id', 30))));
    await source.expireChanges(ITEMS);
    await stack.startService('extractor');
    await reseedAlerted(items, before);
    await converged([ITEMS, LINES_WITH_NOTE]);
  }, 180_000);

  whereReseedsRun(`reseeds, with an alert, a table truncated in the source (its rows left no row events)${pair.name.endsWith('→ PostgreSQL') ? '' : ' (not run: it runs into PostgreSQL)'}`, async () => {
    const table = pair.tableName('sales', 'order_lines');
    const before = await reseedAlerts(table);
    await sourceSql('TRUNCATE TABLE sales.order_lines; INSERT INTO sales.order_lines (order_id, line, qty) VALUES (1, 1, 1)');
    await reseedAlerted(table, before);
    await converged([LINES_WITH_NOTE]);
  }, 180_000);
}

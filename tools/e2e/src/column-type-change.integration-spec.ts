import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { POSTGRES_TO_POSTGRES, type SourceSession, type WarehouseSession } from './engine-pairs';
import { describeReplication, recentWarnings } from './replication-api';
import { keyIs, transaction, update, type Condition } from './suite/changes';
import type { TableSpec } from './suite/table-spec';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const COUNTERS: TableSpec = {
  schema: 'public',
  name: 'c',
  columns: [
    { name: 'id', type: 'int', nullable: false },
    { name: 'n', type: 'int' },
    { name: 'label', type: 'varchar(40)' },
  ],
  primaryKey: ['id'],
};
/** The table after ALTER COLUMN n TYPE bigint and ALTER COLUMN label TYPE varchar(100) (read as text). */
const WIDENED: TableSpec = {
  ...COUNTERS,
  columns: [
    { name: 'id', type: 'int', nullable: false },
    { name: 'n', type: 'bigint' },
    { name: 'label', type: 'text' },
  ],
};
/** The table after RENAME COLUMN label TO title. */
const RENAMED: TableSpec = {
  ...WIDENED,
  columns: [
    { name: 'id', type: 'int', nullable: false },
    { name: 'n', type: 'bigint' },
    { name: 'title', type: 'text' },
  ],
};

/**
 * Issue 21, item 13, on PostgreSQL end to end: a column whose type the source widened (integer → bigint,
 * varchar(40) → varchar(100)) is widened in staging and warehouse before the batch that needs it, so a value
 * of the new type (9,000,000,000) arrives instead of putting the table in Error ("integer out of range"); a
 * renamed column is said in a SchemaChange alert. Follows the pipeline suite's added-column test.
 */
describe('column type changes (PostgreSQL → PostgreSQL)', () => {
  const pair = POSTGRES_TO_POSTGRES;
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2' },
  });
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let sourceDdl: Client;
  let replicationId = '';

  const diagnostics = async () =>
    `${JSON.stringify(await describeReplication(stack, replicationId).catch(() => null))}\n${recentWarnings(stack).join('\n')}`;

  const converged = async (spec: TableSpec, where?: Condition, deadlineMs = 90000) => {
    const deadline = Date.now() + deadlineMs;
    let last = '';
    for (;;) {
      const expected = await source.digest(spec, where);
      const actual = await warehouse.digest('dw', spec, 'all', where).catch(() => null);
      last = `source ${JSON.stringify(expected)} warehouse ${JSON.stringify(actual)}`;
      if (JSON.stringify(actual) === JSON.stringify(expected)) return;
      if (Date.now() > deadline) throw new Error(`the warehouse did not come to equal the source: ${last}\n${await diagnostics()}`);
      await sleep(500);
    }
  };

  const schemaChangeAlerts = async () => (await describeReplication(stack, replicationId)).alerts.filter((alert) => alert.kind === 'SchemaChange').map((alert) => alert.message);

  const columnType = async (database: 'warehouse' | 'staging', column: string): Promise<string | undefined> => {
    const sql = `SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attname = $2 AND NOT a.attisdropped`;
    if (database === 'warehouse') return (await warehouse.query<{ type: string }>(sql, ['dw.c', column]))[0]?.type;
    const staging = new Client({ connectionString: stack.staging.url });
    await staging.connect();
    try {
      return (await staging.query<{ type: string }>(sql, ['public.c', column])).rows[0]?.type;
    } finally {
      await staging.end();
    }
  };

  beforeAll(async () => {
    await stack.start();
    source = await pair.openSource(stack);
    warehouse = await pair.openWarehouse(stack);
    sourceDdl = new Client({ connectionString: stack.source.url });
    await sourceDdl.connect();
    await source.createTables([{ spec: COUNTERS, rows: [1, 2, 3].map((id) => ({ id, n: id * 10, label: `row ${id}` })) }]);
  }, 120000);

  afterAll(async () => {
    await Promise.allSettled([source?.close(), warehouse?.close(), sourceDdl?.end()]);
    await stack.stop();
  }, 60000);

  it('replicates the table as it is first', async () => {
    const body = {
      parallelTablesLimit: 2,
      rebuildIndexes: false,
      source: { connectionString: pair.sourceConnectionString(stack), encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
      staging: { connectionString: pair.stagingConnectionString(stack), encryptDataInTransit: false, replicateCompatibilityLevel: false },
      warehouse: {
        accessType: 'AccessKey',
        accessKey: stack.s3.accessKeyId,
        secretKey: stack.s3.secretAccessKey,
        bucketName: 'type-change-suite',
        bucketFolderName: '/dw',
        regionEndpoint: 'us-east-1',
        retentionDays: 2,
        ...pair.warehouse(stack),
        databaseSchema: 'dw',
        scdType: 'Type1',
      },
      addUpdateTimestamp: false,
      tablesToInclude: 'All',
    };
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect([response.status, response.body]).toEqual([200, expect.any(String)]);
    replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
    const alter = await callSigned(stack.baseUrl, 'AlterWarehouseReplication', 'json', JSON.stringify({ replicationId, alertOnSuccessfulTableSchemaChanges: 'true' }), ADMIN_KEY);
    expect([alter.status, alter.body]).toEqual([200, expect.any(String)]);
    await waitUntil(async () => (await describeReplication(stack, replicationId)).tables.every((table) => table.phase === 'Tracking'), 120000, 'the table to be tracked');
    await converged(COUNTERS);
    expect(await columnType('warehouse', 'n')).toBe('integer');
  }, 180000);

  it('ALTER COLUMN n TYPE bigint and an update to 9,000,000,000: staging and warehouse are widened and end equal to the source', async () => {
    await sourceDdl.query('ALTER TABLE public.c ALTER COLUMN n TYPE bigint, ALTER COLUMN label TYPE varchar(100)');
    await source.apply(transaction(update(WIDENED, { n: 9_000_000_000n, label: 'a label longer than the forty characters it had room for' }, keyIs('id', 2))));
    await converged(WIDENED);
    expect(await columnType('staging', 'n')).toBe('bigint');
    expect(await columnType('warehouse', 'n')).toBe('bigint');
    expect(await columnType('warehouse', 'label')).toBe('character varying(100)');
    const described = await describeReplication(stack, replicationId);
    expect(described.tables.map((table) => table.phase)).toEqual(['Tracking']);
    await waitUntil(async () => (await schemaChangeAlerts()).some((message) => message.includes('widened column n from integer to bigint')), 30000, 'the SchemaChange alert');
    expect((await schemaChangeAlerts()).join('\n')).toMatch(/\[public\]\.\[c\]: widened column n from integer to bigint in staging; widened column label from character varying\(40\) to character varying\(100\) in staging; widened column n .* in the warehouse/);
  }, 180000);

  it('a renamed column arrives as a new one, the old one left stale, and a SchemaChange alert says so', async () => {
    await sourceDdl.query('ALTER TABLE public.c RENAME COLUMN label TO title');
    await source.apply(transaction(update(RENAMED, { title: 'renamed' }, keyIs('id', 3))));
    // The new column is filled by the changes that reach it; rows no change touches hold NULL there until a reseed.
    await converged(RENAMED, keyIs('id', 3));
    // The old column is no longer written: it keeps its values in rows no change touched since, NULL in those changed.
    expect(await warehouse.query<{ id: number; label: string | null; title: string | null }>('SELECT id, label, title FROM dw.c ORDER BY id')).toEqual([
      { id: 1, label: 'row 1', title: null },
      { id: 2, label: 'a label longer than the forty characters it had room for', title: null },
      { id: 3, label: null, title: 'renamed' },
    ]);
    await waitUntil(async () => (await schemaChangeAlerts()).some((message) => message.includes('a rename?')), 30000, 'the rename alert');
    const alert = (await schemaChangeAlerts()).find((message) => message.includes('a rename?')) ?? '';
    expect(alert).toContain('[public].[c]: column label is gone from the source and title appeared in its place with the same type: a rename?');
  }, 180000);
});

import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { LIVE_WAREHOUSE_SCHEMA, LiveReplication, liveCreateRequest, sameDigest } from './live-replication';
import { CUSTOMERS, LIVE_TABLES, LiveWorkload, ORDERS, SALES_ITEMS, money } from './live-workload';
import { alterReplication, deleteReplication, describeResponse, recentWarnings, type DescribeJson } from './replication-api';
import { S3Listing } from './s3-listing';
import { changeSchemaLeftovers, tableTracking, type TableTracking } from './source-tracking';
import { openPg, type SqlTarget } from './sql-target';
import { Increment, between, insert, keyIs, remove, transaction, update } from './suite/changes';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { project, withColumn, type Digest, type TableSpec } from './suite/table-spec';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const BUCKET = 'live-alter-more';
const FIRST_FOLDER = '/first';
const SECOND_FOLDER = '/second/files/';
const CAPTURE_TRIGGERS = ['svc_ct_delete', 'svc_ct_insert', 'svc_ct_truncate', 'svc_ct_update'];
const NOT_TRACKED: TableTracking = { triggers: [], changeTable: false, captureFunction: false, registered: false };
const FULLY_TRACKED: TableTracking = { triggers: CAPTURE_TRIGGERS, changeTable: true, captureFunction: true, registered: true };
const TYPE2_COLUMNS = ['svc_sys_is_current', 'svc_sys_is_deleted', 'svc_sys_valid_from', 'svc_sys_valid_to'];

/** Orders the workload never touches (its keys are 1–2000 and from 100000 on): the test writes these itself. */
const OWN_ORDERS = between('id', 5000, 5999);
/** The column the source gains while SchemaReplication is off. */
const X = { name: 'x', type: 'int' } as const;
const ORDERS_WITH_X = withColumn(ORDERS, X);
const DW_ORDERS = `${LIVE_WAREHOUSE_SCHEMA}.orders`;
/** Every version of a Type2 table: its columns, when the version began and whether it is current. */
const versionsOf = (spec: TableSpec) => withColumn(withColumn(spec, { name: 'svc_sys_valid_from', type: 'timestamptz' }), { name: 'svc_sys_is_current', type: 'boolean' });
const VERSIONS_OF_ORDERS = versionsOf(ORDERS_WITH_X);
const VERSIONS_OF_ITEMS = versionsOf(SALES_ITEMS);

/**
 * More Alters on a running replication while the workload writes (the sibling of live-alter): a table
 * removed from TablesToInclude, a new BucketFolderName, SchemaReplication off and on around a new source
 * column, ScdType Type1 → Type2; then Delete. The source is the stack's own PostgreSQL database (no
 * credential is rotated here).
 */
describe('more Alters on a running replication, then Delete (PostgreSQL → PostgreSQL)', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536' },
  });
  let writer: SourceSession;
  /** The PostgreSQL source engine's own change-capture objects (svc_ct), which these checks inspect directly. */
  let inspector: SqlTarget;
  let workloadSession: SourceSession;
  let staging: SqlTarget;
  let warehouse: WarehouseSession;
  let workload: LiveWorkload;
  let live: LiveReplication;
  let bucket: S3Listing;

  const tablesOf = async (): Promise<string[]> => (await live.describe()).tables.map((table) => table.name).sort();
  const columnsOf = async (target: Pick<SqlTarget, 'query'>, schema: string, table: string): Promise<string[]> =>
    (
      await target.query<{ name: string }>(
        'SELECT column_name::text AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY 1',
        [schema, table],
      )
    ).map((row) => row.name);
  const warehouseTables = async (pattern: RegExp): Promise<string[]> =>
    (
      await warehouse.query<{ name: string }>('SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [
        LIVE_WAREHOUSE_SCHEMA,
      ])
    )
      .map((row) => row.name)
      .filter((name) => pattern.test(name));
  /** `<folder>/<ReplicationId>/<schema>.<table>/`: where the batches of one table go. */
  const tableFolder = (folder: string, table: string) => `${folder.replace(/^\/+|\/+$/g, '')}/${live.replicationId}/${table}/`;
  /** Every table Tracking with no error, after a reseed (which sets each table's last error to its reason). */
  const allTrackingWithoutError = async (state: DescribeJson) =>
    state.tables.length > 0 && state.tables.every((table) => table.phase === 'Tracking' && (table.lastError ?? null) === null);
  /** Waits for a work unit issued before now to have landed: two warehouse movements of every compared table. */
  const twoMovements = async (what: string) => {
    for (const round of [1, 2]) await live.waitForMovement(await live.warehouseDigests(), 30000, `${what} (movement ${round})`);
  };

  beforeAll(async () => {
    await stack.start();
    writer = await POSTGRES_TO_POSTGRES.openSource(stack);
    await writer.createTables(LIVE_TABLES);
    inspector = await openPg(stack.source.url);
    workloadSession = await POSTGRES_TO_POSTGRES.openSource(stack);
    staging = await openPg(stack.staging.url);
    warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    workload = new LiveWorkload(workloadSession);
    live = new LiveReplication({ stack, source: writer, warehouse, workload, tables: [ORDERS, CUSTOMERS, SALES_ITEMS] });
    bucket = new S3Listing(stack.s3, BUCKET);
  }, 120000);

  afterAll(async () => {
    await workload?.stop();
    bucket?.close();
    await Promise.allSettled([writer?.close(), inspector?.close(), workloadSession?.close(), staging?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60000);

  it('replicates three tables while the workload runs', async () => {
    const body = liveCreateRequest(stack, {
      sourceConnectionString: stack.source.url,
      bucketName: BUCKET,
      bucketFolderName: FIRST_FOLDER,
      tablesToInclude: '[public].[orders],[public].[customers],[sales].[items]',
    });
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(response.status).toBe(200);
    live.replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
    await live.waitFor(async () => allTrackingWithoutError(await live.describe()), 60000, 'the three tables to be Tracking');
    expect(await tablesOf()).toEqual(['[public].[customers]', '[public].[orders]', '[sales].[items]']);
    workload.start();
    await live.waitForMovement(await live.warehouseDigests(), 30000, 'the warehouse to follow the workload');
  }, 90000);

  it('removes a table from TablesToInclude: no longer tracked in the source, its warehouse table stays, the others go on', async () => {
    expect(await tableTracking(inspector, 'public', 'customers')).toEqual(FULLY_TRACKED);
    const altered = await alterReplication(stack, live.replicationId, { tablesToInclude: '[public].[orders],[sales].[items]' });
    expect(altered.status).toBe(200);
    live.tables = [ORDERS, SALES_ITEMS];
    await live.waitFor(async () => (await tablesOf()).length === 2, 30000, 'Describe to stop listing customers');
    expect(await tablesOf()).toEqual(['[public].[orders]', '[sales].[items]']);
    // The source is released before the table's state is forgotten, so this holds as soon as Describe changed.
    expect(await tableTracking(inspector, 'public', 'customers')).toEqual(NOT_TRACKED);
    expect(await tableTracking(inspector, 'public', 'orders')).toEqual(FULLY_TRACKED);
    expect(await tableTracking(inspector, 'sales', 'items')).toEqual(FULLY_TRACKED);

    // Work of customers in flight when it was removed may still land once; after that the table stays as it is.
    await twoMovements('orders and sales.items to go on after customers was removed');
    const kept = await live.warehouseDigest(CUSTOMERS);
    expect(kept?.rows).toBeGreaterThan(0);
    await twoMovements('orders and sales.items to go on');
    expect(await live.warehouseDigest(CUSTOMERS)).toEqual(kept);
    // The workload changes customers in every transaction: the source has moved on without it.
    expect(sameDigest(await live.sourceDigest(CUSTOMERS), kept)).toBe(false);
    expect(workload.errors).toEqual([]);
  }, 90000);

  it('writes the files of later batches under a new BucketFolderName, and the warehouse goes on', async () => {
    const tables = ['public.orders', 'sales.items'];
    for (const table of tables) expect((await bucket.keys(tableFolder(FIRST_FOLDER, table))).length).toBeGreaterThan(0);
    expect(await bucket.keys(tableFolder(SECOND_FOLDER, 'public.orders'))).toEqual([]);

    const altered = await alterReplication(stack, live.replicationId, { warehouse: { bucketFolderName: SECOND_FOLDER } });
    expect(altered.status).toBe(200);
    expect((await live.describe()).configuration.warehouse.bucketFolderName).toBe(SECOND_FOLDER);
    await live.waitFor(
      async () => {
        for (const table of tables) if ((await bucket.keys(tableFolder(SECOND_FOLDER, table))).length === 0) return false;
        return true;
      },
      30000,
      'files under the new folder',
    );
    for (const table of tables) {
      const keys = await bucket.keys(tableFolder(SECOND_FOLDER, table));
      // <folder>/<ReplicationId>/<schema>.<table>/<batch>/<file>
      for (const key of keys) expect(key).toMatch(new RegExp(`^second/files/${live.replicationId}/${table.replace('.', '\\.')}/[^/]+/[^/]+$`));
    }

    // Batches extracted before the change may still write to the old folder; once they are through, nothing does.
    await twoMovements('the warehouse to go on after the folder changed');
    const oldFolder = await bucket.keys(`${FIRST_FOLDER.slice(1)}/`);
    const newFolder = await bucket.keys('second/files/');
    await twoMovements('the warehouse to go on');
    expect(await bucket.keys(`${FIRST_FOLDER.slice(1)}/`)).toEqual(oldFolder);
    expect((await bucket.keys('second/files/')).length).toBeGreaterThan(newFolder.length);
  }, 90000);

  it('keeps a new source column out of staging and warehouse while SchemaReplication is off, and brings it with a reseed when it is on', async () => {
    const off = await alterReplication(stack, live.replicationId, { schemaReplication: 'false' });
    expect(off.status).toBe(200);
    expect((await live.describe()).configuration.schemaReplication).toBe(false);
    // Work issued before the Alter still reads every column: let it land before the source changes.
    await twoMovements('work issued before SchemaReplication=false to land');

    await writer.addColumn(ORDERS, X);
    const withX = Array.from({ length: 100 }, (_, index) => 5000 + index).map((g) => ({
      id: g,
      customer_id: 1,
      amount: money(g * 10),
      status: 'with x',
      updated_at: new Date(Date.UTC(2026, 1, 1) + g * 1000),
      x: g % 7,
    }));
    await writer.apply(transaction(insert(ORDERS_WITH_X, withX)));
    await writer.apply(transaction(update(ORDERS_WITH_X, { x: new Increment(100), amount: new Increment(1) }, between('id', 5000, 5049))));
    const ownOrders = () => live.sourceDigest(ORDERS, OWN_ORDERS);
    await live.waitFor(async () => sameDigest(await live.warehouseDigest(ORDERS, OWN_ORDERS), await ownOrders()), 30000, 'the new orders to reach the warehouse');
    await twoMovements('the warehouse to go on without the new column');
    expect(await columnsOf(staging, 'public', 'orders')).not.toContain('x');
    expect(await columnsOf(warehouse, LIVE_WAREHOUSE_SCHEMA, 'orders')).not.toContain('x');
    expect(await columnsOf(staging, 'public', 'orders')).toContain('status');
    expect((await live.describe()).status).toBe('Running');

    const on = await alterReplication(stack, live.replicationId, { schemaReplication: 'true' });
    expect(on.status).toBe(200);
    const reseeding = await live.describe();
    expect(reseeding.alerts).toContainEqual(
      expect.objectContaining({ kind: 'Reseed', message: expect.stringMatching(/^SchemaReplication was turned on/) as unknown }),
    );
    expect(reseeding.tables.map((table) => table.lastError)).toEqual([
      expect.stringMatching(/^SchemaReplication was turned on/),
      expect.stringMatching(/^SchemaReplication was turned on/),
    ]);
    await live.waitFor(async () => allTrackingWithoutError(await live.describe()), 60000, 'the reseed after SchemaReplication=true');
    const idAndX = project(ORDERS_WITH_X, ['id', 'x']);
    const [expected, actual] = [await live.sourceDigest(idAndX, OWN_ORDERS), await live.warehouseDigest(idAndX, OWN_ORDERS)];
    expect(actual).toEqual(expected);
    expect(expected.rows).toBe(100);
    expect(await columnsOf(staging, 'public', 'orders')).toContain('x');
    live.tables = [ORDERS_WITH_X, SALES_ITEMS];
    await twoMovements('the warehouse to go on after the reseed');
    expect(workload.errors).toEqual([]);
  }, 120000);

  it('switches ScdType from Type1 to Type2: explained reseed, Type2 tables, the Type1 tables kept, changes kept as history', async () => {
    const typeOneRows = await warehouse.digest(LIVE_WAREHOUSE_SCHEMA, ORDERS_WITH_X);
    const altered = await alterReplication(stack, live.replicationId, { warehouse: { scdType: 'Type2' } });
    expect(altered.status).toBe(200);
    const reseeding = await live.describe();
    expect(reseeding.configuration.warehouse.scdType).toBe('Type2');
    expect(reseeding.alerts).toContainEqual(
      expect.objectContaining({ kind: 'Reseed', message: expect.stringMatching(/^ScdType changed from Type1 to Type2/) as unknown }),
    );
    expect(reseeding.tables.map((table) => table.lastError)).toEqual([
      expect.stringMatching(/^ScdType changed from Type1 to Type2/),
      expect.stringMatching(/^ScdType changed from Type1 to Type2/),
    ]);
    await live.waitFor(async () => allTrackingWithoutError(await live.describe()), 60000, 'the reseed after the ScdType change');

    live.scdType = 'Type2';
    for (const table of ['orders', 'sales_items']) {
      expect(await columnsOf(warehouse, LIVE_WAREHOUSE_SCHEMA, table)).toEqual(expect.arrayContaining(TYPE2_COLUMNS));
      const kept = await warehouseTables(new RegExp(`^${table}_type1_\\d{8}_\\d{6}$`));
      expect(kept).toHaveLength(1);
      expect(await columnsOf(warehouse, LIVE_WAREHOUSE_SCHEMA, kept[0])).not.toContain('svc_sys_valid_from');
    }
    // The Type1 table was set aside with its rows: about those it had at the Alter (the workload adds two orders a transaction).
    const [keptOrders] = await warehouseTables(/^orders_type1_/);
    const keptRows = await warehouse.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM ${LIVE_WAREHOUSE_SCHEMA}."${keptOrders}"`);
    expect(keptRows[0]?.rows).toBeGreaterThanOrEqual((typeOneRows?.rows ?? Infinity) - 20);

    // History: a key updated twice has three versions, one current; a deleted key has none current.
    await writer.apply(transaction(update(ORDERS_WITH_X, { status: 'history 1' }, keyIs('id', 5001))));
    await live.waitFor(
      async () => (await warehouse.query(`SELECT 1 FROM ${DW_ORDERS} WHERE id = 5001 AND svc_sys_is_current AND status = 'history 1'`)).length === 1,
      30000,
      'the first update as the current version',
    );
    await writer.apply(transaction(update(ORDERS_WITH_X, { status: 'history 2' }, keyIs('id', 5001))));
    await writer.apply(transaction(remove(ORDERS_WITH_X, keyIs('id', 5002))));
    await live.waitFor(
      async () =>
        (await warehouse.query(`SELECT 1 FROM ${DW_ORDERS} WHERE id = 5001 AND svc_sys_is_current AND status = 'history 2'`)).length === 1 &&
        (await warehouse.query(`SELECT 1 FROM ${DW_ORDERS} WHERE id = 5002 AND svc_sys_is_current`)).length === 0,
      30000,
      'the second update and the delete',
    );
    const versions = await warehouse.query<{ status: string; svc_sys_is_current: boolean; closed: boolean }>(
      `SELECT status, svc_sys_is_current, svc_sys_valid_to IS NOT NULL AS closed FROM ${DW_ORDERS} WHERE id = 5001 ORDER BY svc_sys_valid_from`,
    );
    expect(versions).toEqual([
      { status: 'with x', svc_sys_is_current: false, closed: true },
      { status: 'history 1', svc_sys_is_current: false, closed: true },
      { status: 'history 2', svc_sys_is_current: true, closed: false },
    ]);
    expect(await warehouse.query(`SELECT svc_sys_is_deleted FROM ${DW_ORDERS} WHERE id = 5002 ORDER BY svc_sys_valid_from`)).toEqual([{ svc_sys_is_deleted: true }]);
    // And the workload's changes pile up as closed versions.
    const closed = async () => (await warehouse.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${DW_ORDERS} WHERE NOT svc_sys_is_current`))[0]?.n ?? 0;
    const closedBefore = await closed();
    await live.waitFor(async () => (await closed()) > closedBefore + 10, 30000, 'more closed versions');
  }, 120000);

  it('ends with the current warehouse rows equal to the source and every table Tracking', async () => {
    await workload.stop();
    expect(workload.errors).toEqual([]);
    expect(workload.transactions).toBeGreaterThan(100);
    await live.waitForWarehouseEqualsSource(60000);
    const final = await live.describe();
    expect(final.status).toBe('Running');
    expect(await allTrackingWithoutError(final)).toBe(true);
  }, 90000);

  it('deletes the replication: gone from the registry and from the source, its warehouse data stays', async () => {
    const warehouseContent = async () => {
      const digests: (Digest | null)[] = [];
      for (const spec of [VERSIONS_OF_ORDERS, VERSIONS_OF_ITEMS, CUSTOMERS]) digests.push(await warehouse.digest(LIVE_WAREHOUSE_SCHEMA, spec));
      return digests;
    };
    const before = await warehouseContent();
    const keptTables = await warehouseTables(/_type1_/);

    const deleted = await deleteReplication(stack, live.replicationId);
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: '' });
    const afterDelete = await describeResponse(stack, live.replicationId);
    // On failure, say why the replication is still there (it stays Deleting when the source could not be cleaned).
    expect({ status: afterDelete.status, ...(afterDelete.status !== 404 && { body: afterDelete.body, warnings: recentWarnings(stack) }) }).toEqual({ status: 404 });
    const released = { relations: [], functions: [], triggers: [], registered: [] };
    expect(await changeSchemaLeftovers(inspector)).toEqual(released);
    for (const [schema, name] of [['public', 'orders'], ['sales', 'items'], ['public', 'customers']] as const) {
      expect(await tableTracking(inspector, schema, name)).toEqual(NOT_TRACKED);
    }

    // Work that was in flight must not bring tracking back, nor touch the warehouse.
    await sleep(2000);
    expect(await changeSchemaLeftovers(inspector)).toEqual(released);
    const after = await warehouseContent();
    expect(after).toEqual(before);
    expect(after.every((table) => (table?.rows ?? 0) > 0)).toBe(true);
    expect(await warehouseTables(/_type1_/)).toEqual(keptTables);
  }, 60000);
});

import { tableKey } from '@svc/contracts';
import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { LIVE_WAREHOUSE_SCHEMA, liveCreateRequest } from './live-replication';
import { CUSTOMERS, LIVE_TABLES, ORDERS, SALES_ITEMS } from './live-workload';
import { describeReplication, type DescribeJson, type TableStatusJson } from './replication-api';
import type { SourceSession } from './suite/engine-fixture';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function run(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Issue 19, item 4: a staging or warehouse database that already holds a table of a replicated table's name,
 * which the service did not create (a user's `public.customers` in the database named as Staging, an unrelated
 * `dw.orders` in the warehouse). That table goes to Error with the reason as its lastError and one Failure alert,
 * the user's rows stay as they were, and the other tables replicate. Once the user drops it, StartReplication
 * brings the table back.
 */
describe('tables of the same name the service did not create (PostgreSQL → PostgreSQL)', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', WORKER_CONCURRENCY: '2' },
  });
  let source: SourceSession;
  let replicationId = '';

  const customersName = tableKey(CUSTOMERS);
  const ordersName = tableKey(ORDERS);
  const itemsName = tableKey(SALES_ITEMS);
  const stagingReason = 'Staging table public.customers exists and was not created by this service: it is not written. Drop or rename it, or choose another staging database or schema';
  const warehouseReason = `Warehouse table ${LIVE_WAREHOUSE_SCHEMA}.orders exists and was not created by this service: it is not written. Drop or rename it, or choose another warehouse database or Warehouse.DatabaseSchema`;

  const describe_ = (): Promise<DescribeJson> => describeReplication(stack, replicationId);
  const tableOf = (state: DescribeJson, name: string): TableStatusJson | undefined => state.tables.find((table) => table.name === name);
  const failures = (state: DescribeJson, name: string) => state.alerts.filter((alert) => alert.kind === 'Failure' && alert.message.startsWith(`${name}: `));

  beforeAll(async () => {
    await stack.start();
    source = await POSTGRES_TO_POSTGRES.openSource(stack);
    await source.createTables(LIVE_TABLES.map(({ spec, rows }) => ({ spec, rows: rows.slice(0, 50) })));
    await run(stack.staging.url, `CREATE TABLE public.customers (id int PRIMARY KEY, secret text NOT NULL);
INSERT INTO public.customers VALUES (1, 'the staging database''s own row')`);
    await run(stack.warehouse.url, `CREATE SCHEMA ${LIVE_WAREHOUSE_SCHEMA};
CREATE TABLE ${LIVE_WAREHOUSE_SCHEMA}.orders (id bigint PRIMARY KEY, ledger text NOT NULL);
INSERT INTO ${LIVE_WAREHOUSE_SCHEMA}.orders VALUES (1, 'the warehouse''s own row')`);
  }, 120000);

  afterAll(async () => {
    await source?.close().catch(() => undefined);
    await stack.stop();
  }, 60000);

  it('fails each such table with the reason and one Failure alert, leaves its rows, and replicates the others', async () => {
    const body = liveCreateRequest(stack, {
      sourceConnectionString: stack.source.url,
      bucketName: 'foreign-tables',
      bucketFolderName: 'files',
      tablesToInclude: '[public].[orders],[public].[customers],[sales].[items]',
    });
    const created = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(created.status).toBe(200);
    replicationId = (JSON.parse(created.body) as { replicationId: string }).replicationId;

    await waitUntil(
      async () => {
        const state = await describe_();
        return tableOf(state, customersName)?.phase === 'Error' && tableOf(state, ordersName)?.phase === 'Error' && tableOf(state, itemsName)?.phase === 'Tracking';
      },
      90000,
      'customers and orders to fail, items to be tracked',
    );
    // Time in which a retry loop would have failed again, and alerted again.
    await sleep(3000);
    const state = await describe_();
    expect(state.status).toBe('Running');
    expect(tableOf(state, customersName)).toMatchObject({ phase: 'Error', lastError: stagingReason });
    expect(tableOf(state, ordersName)).toMatchObject({ phase: 'Error', lastError: warehouseReason });
    expect(failures(state, customersName).map((alert) => alert.message)).toEqual([`${customersName}: ${stagingReason}`]);
    expect(failures(state, ordersName).map((alert) => alert.message)).toEqual([`${ordersName}: ${warehouseReason}`]);

    expect(await run(stack.staging.url, 'SELECT id, secret FROM public.customers')).toEqual([{ id: 1, secret: "the staging database's own row" }]);
    expect(await run(stack.warehouse.url, `SELECT id::int AS id, ledger FROM ${LIVE_WAREHOUSE_SCHEMA}.orders`)).toEqual([{ id: 1, ledger: "the warehouse's own row" }]);
    expect(await run(stack.warehouse.url, `SELECT count(*)::int AS n FROM ${LIVE_WAREHOUSE_SCHEMA}.sales_items`)).toEqual([{ n: 50 }]);
  }, 150000);

  it('once the user drops the staging table, StartReplication brings customers back', async () => {
    await run(stack.staging.url, 'DROP TABLE public.customers');
    const started = await callSigned(stack.baseUrl, 'StartReplication', 'json', JSON.stringify({ replicationId }), ADMIN_KEY);
    expect(started.status).toBe(200);
    await waitUntil(async () => tableOf(await describe_(), customersName)?.phase === 'Tracking', 90000, 'customers to be tracked');
    expect(await run(stack.warehouse.url, `SELECT count(*)::int AS n FROM ${LIVE_WAREHOUSE_SCHEMA}.customers`)).toEqual([{ n: 50 }]);
    // The warehouse's own orders table is still refused: StartReplication tried it again, and it failed again.
    expect(tableOf(await describe_(), ordersName)).toMatchObject({ phase: 'Error', lastError: warehouseReason });
  }, 150000);
});

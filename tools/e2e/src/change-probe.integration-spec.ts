import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { LIVE_WAREHOUSE_SCHEMA, liveCreateRequest } from './live-replication';
import { describeReplication } from './replication-api';

const TABLES = 12;
const name = (index: number) => `quiet${String(index).padStart(2, '0')}`;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const sameCycles = (left: ReadonlyMap<string, unknown>, right: ReadonlyMap<string, unknown>) =>
  left.size === right.size && [...left].every(([table, at]) => right.get(table) === at);

/**
 * Issue 23, goal 3: the registry asks the source which idle tracked tables have changes (one probe for all of them,
 * through an extractor) and gives change cycles to those only. Before, every idle table got a cycle every
 * IDLE_CYCLE_DELAY_MS in turn, so one change waited behind all the empty cycles of the others.
 */
describe('the change probe (PostgreSQL → PostgreSQL): idle tables get no cycles, a changed one gets its cycle', () => {
  const stack = new TestStack({ workers: ['extractor', 'stager', 'loader'], env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100' } });
  let source: Client;
  let warehouse: Client;
  let replicationId = '';

  const lastCycles = async (): Promise<Map<string, string | null | undefined>> => {
    const state = await describeReplication(stack, replicationId);
    return new Map(state.tables.map((table) => [table.name, table.lastCycleAt]));
  };

  beforeAll(async () => {
    await stack.start();
    source = new Client({ connectionString: stack.source.url });
    warehouse = new Client({ connectionString: stack.warehouse.url });
    await Promise.all([source.connect(), warehouse.connect()]);
    await source.query(Array.from({ length: TABLES }, (_, index) => `create table ${name(index)} (id integer primary key, v integer); insert into ${name(index)} values (1, 0);`).join('\n'));
    const body = liveCreateRequest(stack, { sourceConnectionString: stack.source.url, bucketName: 'change-probe', bucketFolderName: 'files', tablesToInclude: 'All' });
    const created = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(created.status).toBe(200);
    replicationId = (JSON.parse(created.body) as { replicationId: string }).replicationId;
    await waitUntil(async () => (await describeReplication(stack, replicationId)).tables.filter((table) => table.phase === 'Tracking').length === TABLES, 120_000, 'every table Tracking');
  }, 180_000);

  afterAll(async () => {
    await Promise.allSettled([source?.end(), warehouse?.end()]);
    await stack.stop();
  }, 60_000);

  it('leaves idle tables without change cycles, then cycles the one table that changed, and only it', async () => {
    // Let the cycles that follow the seeds settle: each table's first cycle, then the one the replication's first
    // probe gives every table (it has no schema stamps to compare with). On a slow machine the last seeds end seconds
    // after every table reads Tracking, so settling is waited for, not slept: with cycles every 100 ms in turn
    // (IDLE_CYCLE_DELAY_MS), each table would have had several in any 3 s and this would time out.
    let before = await lastCycles();
    let stillSince = Date.now();
    await waitUntil(
      async () => {
        const now = await lastCycles();
        if (!sameCycles(now, before)) [before, stillSince] = [now, Date.now()];
        return Date.now() - stillSince >= 3000;
      },
      60_000,
      'no table to get a cycle for 3 s after the seeds',
    );
    expect([...before.values()].every((at) => typeof at === 'string')).toBe(true);
    await sleep(3000);
    expect(await lastCycles()).toEqual(before);

    await source.query(`update ${name(7)} set v = 42 where id = 1`);
    await waitUntil(
      async () => (await warehouse.query<{ v: number }>(`select v from ${LIVE_WAREHOUSE_SCHEMA}.${name(7)} where id = 1`)).rows[0]?.v === 42,
      30_000,
      'the change to reach the warehouse',
    );
    // The warehouse shows the row before the registry hears of the load (the loader reports after its commit).
    const changed = `[public].[${name(7)}]`;
    let cycled: string[] = [];
    await waitUntil(
      async () => {
        const after = await lastCycles();
        cycled = [...after].filter(([table, at]) => at !== before.get(table)).map(([table]) => table);
        return cycled.includes(changed);
      },
      10_000,
      'the registry to record the cycle',
    );
    expect(cycled).toEqual([changed]);
  });
});

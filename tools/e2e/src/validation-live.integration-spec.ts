import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { LiveReplication, liveCreateRequest } from './live-replication';
import { alterReplication, validateReplication, waitForValidation } from './replication-api';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import type { TableSpec } from './suite/table-spec';

const PGBENCH_TABLES = ['[public].[pgbench_accounts]', '[public].[pgbench_branches]', '[public].[pgbench_tellers]'];
/** A pgbench table as the warehouse digests read it: its key and its balance (what every transaction changes). */
const spec = (name: string, key: string, balance: string): TableSpec => ({
  schema: 'public',
  name,
  columns: [
    { name: key, type: 'int', nullable: false },
    { name: balance, type: 'int' },
  ],
  primaryKey: [key],
});

/**
 * Validation is honest under live changes (issue 24): while pgbench writes to the source, repeated validations
 * of a correct replication report no difference, every time. pgbench's branches and tellers are rewritten by
 * every transaction, so their keys change while they are compared: they may stay unsettled, never different.
 */
describe('validation while pgbench writes to the source (PostgreSQL → PostgreSQL)', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    // The accounts' 100,000 rows are read range by range of their integer key at 50,000 rows/s: at least 2 s a pass.
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536', VALIDATION_MAX_ROWS_PER_SECOND: '50000' },
  });
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let live: LiveReplication;
  let pgbench: ChildProcess | undefined;
  let pgbenchOutput = '';

  beforeAll(async () => {
    await stack.start();
    const init = spawnSync('pgbench', ['-i', '-s', '1', '-q', '--foreign-keys', stack.source.url], { encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`pgbench -i failed: ${init.stderr}`);
    source = await POSTGRES_TO_POSTGRES.openSource(stack);
    warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    live = new LiveReplication({ stack, source, warehouse, tables: [spec('pgbench_branches', 'bid', 'bbalance'), spec('pgbench_tellers', 'tid', 'tbalance')] });
  }, 120000);

  afterAll(async () => {
    pgbench?.kill('SIGINT');
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60000);

  it('replicates pgbench\'s keyed tables', async () => {
    const body = liveCreateRequest(stack, { sourceConnectionString: stack.source.url, bucketName: 'validation-live', bucketFolderName: '/live', tablesToInclude: PGBENCH_TABLES.join(',') });
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(response.status).toBe(200);
    live.replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
    await live.waitFor(async () => (await live.describe()).tables.filter((table) => table.phase === 'Tracking').length === 3, 90000, 'the three tables to be Tracking');
  }, 120000);

  it('reports no difference in any of three validations while pgbench runs', async () => {
    // Two clients at 100 transactions a second (a steady workload that leaves the suite's other specs CPU): each
    // updates an account, a teller and the branch, and appends to history.
    pgbench = spawn('pgbench', ['-n', '-c', '2', '-R', '100', '-T', '180', stack.source.url], { stdio: ['ignore', 'pipe', 'pipe'] });
    pgbench.stdout?.on('data', (chunk: Buffer) => (pgbenchOutput += chunk.toString()));
    pgbench.stderr?.on('data', (chunk: Buffer) => (pgbenchOutput += chunk.toString()));
    await live.waitForMovement(await live.warehouseDigests(), 30000, 'the warehouse to follow pgbench');
    for (let round = 1; round <= 3; round += 1) {
      const tables = await validateReplication(stack, live.replicationId, 120000);
      const summary = tables.map((table) => ({ name: table.name, state: table.state, mismatchedKeys: table.mismatchedKeys, reason: table.reason ?? null }));
      expect({ round, summary }).toEqual({ round, summary: PGBENCH_TABLES.map((name) => ({ name, state: 'Validated', mismatchedKeys: 0, reason: null })) });
      const accounts = tables.find((table) => table.name === '[public].[pgbench_accounts]');
      expect(accounts?.rowsCompared).toBe(100000);
      expect(Date.parse(accounts?.endedAt ?? '') - Date.parse(accounts?.startedAt ?? '')).toBeGreaterThanOrEqual(2000);
    }
    expect(pgbench.exitCode).toBeNull();
    expect(pgbenchOutput).not.toMatch(/error|abort/i);
  }, 420000);

  it('validates by itself on a ValidationSchedule (every minute of the day: 2 s here), and stops once its interval is 0', async () => {
    const latest = async () => {
      const described = await callSigned(stack.baseUrl, 'DescribeReplicationValidation', 'json', JSON.stringify({ replicationId: live.replicationId }), ADMIN_KEY);
      return JSON.parse(described.body) as { validationId: string; scheduled: boolean };
    };
    const requested = await latest();
    const everyMinute = { validationSchedule: { fromTime: '12:00:00 AM', toTime: '11:59:59 PM', repeatIntervalInMinutes: '1' } };
    expect(await alterReplication(stack, live.replicationId, everyMinute)).toMatchObject({ status: 200 });
    await live.waitFor(async () => (await latest()).scheduled, 30000, 'a scheduled validation to start');
    const scheduled = await latest();
    const tables = await waitForValidation(stack, live.replicationId, scheduled.validationId, 120000);
    expect(tables.map((table) => ({ name: table.name, state: table.state, mismatchedKeys: table.mismatchedKeys }))).toEqual(
      PGBENCH_TABLES.map((name) => ({ name, state: 'Validated', mismatchedKeys: 0 })),
    );
    expect(scheduled.validationId).not.toBe(requested.validationId);

    expect(await alterReplication(stack, live.replicationId, { validationSchedule: { repeatIntervalInMinutes: '0' } })).toMatchObject({ status: 200 });
    const last = (await latest()).validationId;
    await waitForValidation(stack, live.replicationId, last, 120000);
    // Two scheduler ticks (10 s each) with the interval long passed: no new validation.
    await new Promise((done) => setTimeout(done, 22000));
    expect((await latest()).validationId).toBe(last);
  }, 240000);
});

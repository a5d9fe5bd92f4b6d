import { randomBytes } from 'node:crypto';
import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { LiveReplication, liveCreateRequest, sameDigest as same, sameDigests } from './live-replication';
import { CUSTOMERS, LIVE_TABLES, LiveWorkload, ORDERS, SALES_ITEMS } from './live-workload';
import { startPasswordPostgres, type PasswordPostgres } from './password-postgres';
import { alterReplication } from './replication-api';
import { openPg, type SqlTarget } from './sql-target';
import { insert, transaction } from './suite/changes';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';
import { openPostgresSource } from './suite/postgres-fixture';
import { tableLabel } from './suite/table-spec';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Alters a running replication while a workload writes to the source: a table added to TablesToInclude,
 * DataReplication off and on, a small ChangeTrackingBatchLimit, the source password rotated (and a wrong
 * one refused). Afterwards the warehouse must still equal the source, row for row. The rotation comes
 * last so that, should it break the replication, the other changes have been checked already.
 *
 * The source lives on a PostgreSQL server of the test's own that checks passwords, because the shared
 * test server trusts every local connection (a rotated password would prove nothing there).
 */
describe('altering a running replication while changes flow (PostgreSQL → PostgreSQL)', () => {
  const stack = new TestStack({
    workers: ['extractor', 'stager', 'loader'],
    env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536' },
  });
  const role = `svc_src_${randomBytes(4).toString('hex')}`;
  const firstPassword = `p1-${randomBytes(9).toString('hex')}`;
  const secondPassword = `p2-${randomBytes(9).toString('hex')}`;
  const wrongPassword = `wrong-${randomBytes(9).toString('hex')}`;
  const database = 'svc_live_source';
  let server: PasswordPostgres;
  /** PostgreSQL's own administration (roles, sessions): what a password rotation needs, beyond the engine fixture. */
  let admin: SqlTarget;
  let writer: SourceSession;
  let workloadSession: SourceSession;
  let warehouse: WarehouseSession;
  let workload: LiveWorkload;
  let live: LiveReplication;
  let maskedSource = '';

  const sourceUrl = (password: string) => server.url(database, { name: role, password });
  const TABLES = [ORDERS, CUSTOMERS, SALES_ITEMS];

  beforeAll(async () => {
    [server] = await Promise.all([startPasswordPostgres(), stack.start()]);
    admin = await openPg(server.url('postgres'));
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${firstPassword}'`);
    // Owner of the database and of every table: enough to create svc_ct and the capture triggers.
    await admin.query(`CREATE DATABASE ${database} OWNER ${role}`);
    const owner = await openPostgresSource(sourceUrl(firstPassword));
    try {
      await owner.createTables(LIVE_TABLES);
    } finally {
      await owner.close();
    }
    // The test and its workload write as the superuser, so terminating the role's sessions never interrupts them.
    writer = await openPostgresSource(server.url(database));
    workloadSession = await openPostgresSource(server.url(database));
    warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    workload = new LiveWorkload(workloadSession);
    live = new LiveReplication({ stack, source: writer, warehouse, workload, tables: TABLES });
  }, 120000);

  afterAll(async () => {
    await workload?.stop();
    await Promise.allSettled([admin?.close(), writer?.close(), workloadSession?.close(), warehouse?.close()]);
    await stack.stop();
    await server?.stop();
  }, 60000);

  it('replicates only the tables TablesToInclude names', async () => {
    const body = liveCreateRequest(stack, {
      sourceConnectionString: sourceUrl(firstPassword),
      bucketName: 'live-alter',
      bucketFolderName: '/dw',
      tablesToInclude: '[public].[orders],[sales].[items]',
    });
    const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(response.status).toBe(200);
    live.replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
    await live.waitFor(
      async () => {
        const now = await live.phases();
        return now['[public].[orders]'] === 'Tracking' && now['[sales].[items]'] === 'Tracking';
      },
      60000,
      'orders and sales.items to be Tracking',
    );
    expect(Object.keys(await live.phases()).sort()).toEqual(['[public].[orders]', '[sales].[items]']);
    maskedSource = (await live.describe()).configuration.source.connectionString;
    expect(maskedSource).toContain(`${role}:********@`);
    expect(maskedSource).not.toContain(firstPassword);
  }, 90000);

  it('adds a table to TablesToInclude while the workload runs: it is seeded, then tracked', async () => {
    workload.start();
    await live.waitFor(async () => workload.transactions >= 20, 10000, 'the workload to get going');
    const altered = await alterReplication(stack, live.replicationId, { tablesToInclude: '[public].[orders],[sales].[items],[public].[customers]' });
    expect(altered.status).toBe(200);
    await live.waitFor(async () => ['Seeding', 'Tracking'].includes((await live.phases())['[public].[customers]'] ?? ''), 30000, 'customers to be picked up');
    await live.waitFor(async () => (await live.phases())['[public].[customers]'] === 'Tracking', 60000, 'customers to be Tracking');
    expect(workload.errors).toEqual([]);
  }, 120000);

  it('moves no data while DataReplication is off, and resumes when it is back on', async () => {
    const flowing = await live.warehouseDigest(ORDERS);
    await live.waitFor(async () => !same(await live.warehouseDigest(ORDERS), flowing), 30000, 'the warehouse to follow the workload');
    const off = await alterReplication(stack, live.replicationId, { dataReplication: 'false' });
    expect(off.status).toBe(200);
    expect((await live.describe()).status).toBe('Stopped');
    // Batches extracted before the switch may still land: wait for the warehouse to be quiet first.
    const quiet = await live.settled(2500, 30000);
    const transactionsBefore = workload.transactions;
    await sleep(4000);
    expect(workload.transactions).toBeGreaterThan(transactionsBefore + 20);
    expect(await live.warehouseDigests()).toEqual(quiet);
    expect(same(await live.sourceDigest(ORDERS), quiet[0] ?? null)).toBe(false);

    const on = await alterReplication(stack, live.replicationId, { dataReplication: 'true' });
    expect(on.status).toBe(200);
    expect((await live.describe()).status).toBe('Running');
    await live.waitFor(async () => !sameDigests(await live.warehouseDigests(), quiet), 30000, 'the warehouse to move again');
  }, 90000);

  it('keeps up with a small ChangeTrackingBatchLimit and with a large one again', async () => {
    for (const limit of [7, 100000]) {
      const altered = await alterReplication(stack, live.replicationId, { changeTrackingBatchLimit: String(limit) });
      expect(altered.status).toBe(200);
      expect((await live.describe()).configuration.changeTrackingBatchLimit).toBe(limit);
      for (const shape of TABLES) {
        const seen = await live.warehouseDigest(shape);
        await live.waitFor(async () => !same(await live.warehouseDigest(shape), seen), 30000, `${tableLabel(shape)} to move with ChangeTrackingBatchLimit ${limit}`);
      }
    }
  }, 120000);

  it('rotates the source password: the new string is taken, and the service reconnects with it', async () => {
    await admin.query(`ALTER ROLE ${role} PASSWORD '${secondPassword}'`);
    const rotated = await alterReplication(stack, live.replicationId, { sourceConnectionString: sourceUrl(secondPassword) });
    expect({ status: rotated.status, body: rotated.body }).toEqual({ status: 200, body: '' });
    expect((await live.describe()).configuration.source.connectionString).toBe(maskedSource);

    // Sessions opened with the old password stay logged in until they end: end them.
    let terminated = 0;
    await live.waitFor(
      async () => {
        const rows = await admin.query<{ ended: boolean }>(
          'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()',
          [role],
        );
        terminated += rows.filter((row) => row.ended).length;
        return terminated > 0;
      },
      10000,
      `the service's sessions as ${role} to be terminated`,
    );

    // A change made after the sessions ended reaches the warehouse only through a new session, opened with p2.
    await writer.apply(transaction(insert(CUSTOMERS, [{ id: 900000, name: 'after rotation', city: 'p2' }])));
    await live.waitFor(
      async () => {
        const rows = await warehouse.query<{ name: string }>('SELECT name FROM dw.customers WHERE id = 900000').catch(() => []);
        return rows[0]?.name === 'after rotation';
      },
      30000,
      'a change written after the rotation to reach the warehouse',
    );
  }, 90000);

  it('refuses a source connection string with a wrong password and keeps the stored one', async () => {
    const refused = await alterReplication(stack, live.replicationId, { sourceConnectionString: sourceUrl(wrongPassword) });
    expect(refused.status).toBe(400);
    const errors = (JSON.parse(refused.body) as { errors: string[] }).errors;
    expect(errors).toEqual([expect.stringMatching(/^\{SourceConnectionString\}: /)]);
    expect(refused.body).not.toContain(wrongPassword);
    expect((await live.describe()).configuration.source.connectionString).toBe(maskedSource);
    // That the kept string is the working one shows in the last test: the warehouse catches up through it.
  }, 30000);

  it('ends with the warehouse equal to the source and every table Tracking without an error', async () => {
    await workload.stop();
    expect(workload.errors).toEqual([]);
    expect(workload.transactions).toBeGreaterThan(100);
    await live.waitForWarehouseEqualsSource(60000);
    const final = await live.describe();
    expect(final.status).toBe('Running');
    expect(final.tables.map((table) => ({ name: table.name, phase: table.phase, lastError: table.lastError ?? null }))).toEqual(
      expect.arrayContaining(
        ['[public].[customers]', '[public].[orders]', '[sales].[items]'].map((name) => ({ name, phase: 'Tracking', lastError: null })),
      ),
    );
    expect(final.tables).toHaveLength(3);
  }, 120000);

  it('never logs a password', () => {
    const logs = stack.logs();
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [firstPassword, secondPassword, wrongPassword, ADMIN_KEY.secretKey]) expect(logs).not.toContain(secret);
  });
});

import { ADMIN_KEY, TestStack, callSigned } from '@svc/system-testing';
import { startTestNats, type TestNatsServer } from '@svc/testing';
import { connect, type NatsConnection } from 'nats';
import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { LiveReplication, liveCreateRequest } from './live-replication';
import { CUSTOMERS, LIVE_TABLES, LiveWorkload, ORDERS, SALES_ITEMS } from './live-workload';
import type { SourceSession, WarehouseSession } from './suite/engine-fixture';

const TABLES = '[public].[orders],[public].[customers],[sales].[items]';
const allTracking = (tables: { phase: string }[]) => tables.length === 3 && tables.every((table) => table.phase === 'Tracking');

/** One installation's stack, its sessions and its replication. */
interface Installation {
  name: string;
  stack: TestStack;
  writer?: SourceSession;
  workloadSession?: SourceSession;
  warehouse?: WarehouseSession;
  workload?: LiveWorkload;
  live?: LiveReplication;
}

/**
 * Issue 40 item 2: two stacks on one nats-server, the default installation and `SVC_INSTALLATION=blue`, each with its
 * own registry, workers, databases and bucket, replicating at the same time under a workload. Had they shared subjects,
 * streams or consumers, each stack's workers would take about half of the other's messages and drop them (a
 * replication their registry does not know), and neither replication would converge.
 */
describe('two installations on one NATS server (SVC_INSTALLATION)', () => {
  let nats: TestNatsServer;
  /** Each stack stops what it started; the shared server is stopped here, once. */
  const sharedNats = () => Promise.resolve({ ...nats, stop: () => Promise.resolve() });
  const env = { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', WORKER_CONCURRENCY: '2' };
  const installations: Installation[] = [
    { name: '(default)', stack: new TestStack({ workers: ['extractor', 'stager', 'loader'], startNats: sharedNats, env }) },
    { name: 'blue', stack: new TestStack({ workers: ['extractor', 'stager', 'loader'], startNats: sharedNats, env, installation: 'blue' }) },
  ];

  beforeAll(async () => {
    nats = await startTestNats();
    await Promise.all(installations.map(({ stack }) => stack.start()));
    for (const installation of installations) {
      installation.writer = await POSTGRES_TO_POSTGRES.openSource(installation.stack);
      await installation.writer.createTables(LIVE_TABLES);
      installation.workloadSession = await POSTGRES_TO_POSTGRES.openSource(installation.stack);
      installation.warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(installation.stack);
      installation.workload = new LiveWorkload(installation.workloadSession);
    }
  }, 180000);

  afterAll(async () => {
    await Promise.allSettled(installations.map(async (installation) => installation.workload?.stop()));
    await Promise.allSettled(installations.flatMap(({ writer, workloadSession, warehouse }) => [writer, workloadSession, warehouse].map(async (session) => session?.close())));
    await Promise.allSettled(installations.map(({ stack }) => stack.stop()));
    await nats?.stop();
  }, 60000);

  it('replicates each installation\'s source into its own warehouse at the same time, neither touching the other\'s work', async () => {
    for (const installation of installations) {
      const { stack, writer, warehouse, workload } = installation;
      if (writer === undefined || warehouse === undefined || workload === undefined) throw new Error('the sessions did not open');
      const body = liveCreateRequest(stack, { sourceConnectionString: stack.source.url, bucketName: 'installations', bucketFolderName: 'files', tablesToInclude: TABLES });
      const response = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
      expect({ installation: installation.name, status: response.status }).toEqual({ installation: installation.name, status: 200 });
      installation.live = new LiveReplication({ stack, source: writer, warehouse, workload, tables: [ORDERS, CUSTOMERS, SALES_ITEMS] });
      installation.live.replicationId = (JSON.parse(response.body) as { replicationId: string }).replicationId;
      workload.start();
    }
    const lives = installations.map(({ live }) => live).filter((live): live is LiveReplication => live !== undefined);
    await Promise.all(lives.map(async (live) => live.waitFor(async () => allTracking((await live.describe()).tables), 90000, 'the three tables to be Tracking')));
    await Promise.all(installations.map(async (installation) => installation.workload?.stop()));
    await Promise.all(lives.map((live) => live.waitForWarehouseEqualsSource(90000)));

    for (const [index, { stack, workload }] of installations.entries()) {
      expect(workload?.errors).toEqual([]);
      expect(workload?.transactions).toBeGreaterThan(0);
      // Nothing of the other installation's replication reached this one's services.
      const other = lives[1 - index]?.replicationId ?? '';
      expect(other).not.toBe('');
      expect(stack.logs()).not.toContain(other);
    }

    // Each installation has its own streams and durable consumers on the one server.
    const admin: NatsConnection = await connect({ servers: nats.url });
    try {
      const manager = await admin.jetstreamManager();
      const streams = (await manager.streams.names().next()).sort();
      expect(streams).toEqual(expect.arrayContaining(['SVC_PIPELINE_V1', 'SVC_ROWS_V1', 'SVC_BLUE_PIPELINE_V1', 'SVC_BLUE_ROWS_V1']));
      for (const stream of ['SVC_PIPELINE_V1', 'SVC_BLUE_PIPELINE_V1']) {
        const consumers = (await manager.consumers.list(stream).next()).map((consumer) => consumer.name).sort();
        expect({ stream, consumers }).toEqual({ stream, consumers: ['extractor', 'extractor-validate', 'job-registry-failed', 'job-registry-loaded', 'job-registry-staging-applied', 'loader', 'stager'] });
      }
    } finally {
      await admin.close();
    }
  }, 300000);
});

import { ADMIN_KEY, ServiceProcess, TestStack, callSigned } from '@svc/system-testing';
import { ConcurrentWorkload } from './concurrent-workload';
import { POSTGRES_TO_POSTGRES, type SourceSession, type WarehouseSession } from './engine-pairs';
import { LiveReplication, liveCreateRequest } from './live-replication';
import { LIVE_TABLES } from './live-workload';
import { PAIR_TABLES, ReplicationPair } from './replication-pair';

/** Chunks of about 16 KiB of table: the live tables are cut into a few to a dozen chunks each. */
const CHUNK_KB = '16';
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Every `seed chunk staged` line of `logs` for the replication: its batch id. */
function stagedChunks(logs: string, replicationId: string): string[] {
  return logs
    .split('\n')
    .filter((line) => line.includes('"seed chunk staged"') && line.includes(replicationId))
    .map((line) => (JSON.parse(line) as { batchId: string }).batchId);
}

/**
 * Chunked seeds (issue 39, item 1): a keyed table over SEED_CHUNK_KB is cut into key ranges, each read in its own
 * snapshot by any extractor and applied by any stager, in any order; the changes from the capture horizon taken before
 * the first chunk are applied over the chunks before the seed becomes the warehouse table's; a seed interrupted goes on
 * from the chunks loaded.
 */
describe('chunked seeds: parallel, exact under writes, resumed after a crash', () => {
  const stack = new TestStack({
    ...(POSTGRES_TO_POSTGRES.sourceServer && { sourceServer: POSTGRES_TO_POSTGRES.sourceServer }),
    workers: ['extractor', 'stager', 'loader'],
    env: { SEED_CHUNK_KB: CHUNK_KB, SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536' },
  });
  let secondStager: ServiceProcess;
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let workload: ConcurrentWorkload;

  beforeAll(async () => {
    await stack.start();
    secondStager = new ServiceProcess('stager', stack.envOf('stager'));
    secondStager.start();
    source = await POSTGRES_TO_POSTGRES.openSource(stack);
    warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    await source.createTables(LIVE_TABLES);
    workload = new ConcurrentWorkload({ open: () => POSTGRES_TO_POSTGRES.openSource(stack), clients: 2, pauseMs: 20 });
  }, 120000);

  afterAll(async () => {
    await workload?.stop();
    await secondStager?.stop();
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60000);

  it('seeds every table in chunks, two stagers applying them, while the source is written, and ends exactly equal (Type1 and Type2)', async () => {
    const pair = new ReplicationPair({ stack, source, warehouse, workload, bucketName: 'chunked-seeds' });
    await workload.start();
    await pair.create();
    await pair.type1.waitFor(() => pair.tracking(), 120000, 'every table of both replications to be Tracking');
    await workload.stop();
    expect(workload.unexpected).toEqual([]);
    await pair.waitForConvergence(90000);
    expect(await pair.duplicates()).toEqual([]);

    const logs = stack.logs() + secondStager.logs();
    for (const live of pair.both) {
      const chunks = stagedChunks(logs, live.replicationId);
      // Every table over 16 KiB was cut: more chunks than tables, each chunk applied once.
      expect(chunks.length).toBeGreaterThan(PAIR_TABLES.length * 2);
      expect(new Set(chunks).size).toBe(chunks.length);
    }
    // Both stager instances applied chunks.
    expect(stagedChunks(secondStager.logs(), pair.type1.replicationId).length + stagedChunks(secondStager.logs(), pair.type2.replicationId).length).toBeGreaterThan(0);
    expect(stagedChunks(stack.logs(), pair.type1.replicationId).length + stagedChunks(stack.logs(), pair.type2.replicationId).length).toBeGreaterThan(0);
  }, 300000);

  it('goes on from the chunks loaded after SIGKILL of extractor, stagers and loader mid-seed, and ends exactly equal', async () => {
    const live = new LiveReplication({ stack, source, warehouse, tables: PAIR_TABLES, warehouseSchema: 'resumed', workload });
    const started = Date.now();
    await workload.start();
    const body = liveCreateRequest(stack, {
      sourceConnectionString: stack.source.url,
      bucketName: 'chunked-seeds',
      bucketFolderName: '/resumed',
      tablesToInclude: 'All',
      databaseSchema: 'resumed',
    });
    const created = await callSigned(stack.baseUrl, 'CreateWarehouseReplication', 'json', JSON.stringify(body), ADMIN_KEY);
    expect(created.status).toBe(200);
    live.replicationId = (JSON.parse(created.body) as { replicationId: string }).replicationId;
    // Mid-seed: some chunk of some table loaded, and that table not yet done.
    await live.waitFor(
      async () => (await live.describe()).tables.some((table) => (table.seedChunksLoaded ?? 0) >= 1 && (table.seedChunksLoaded ?? 0) < (table.seedChunks ?? 0)),
      60000,
      'a table with some, not all, of its chunks loaded',
    );
    const before = (await live.describe()).tables.map((table) => `${table.name}: ${table.seedChunksLoaded ?? '-'}/${table.seedChunks ?? '-'}`);
    await Promise.all([stack.killService('extractor'), stack.killService('stager'), stack.killService('loader'), secondStager.stop('SIGKILL')]);
    await sleep(1000);
    for (const service of ['extractor', 'stager', 'loader'] as const) await stack.startService(service);
    await live.waitFor(async () => Object.values(await live.phases()).every((phase) => phase === 'Tracking'), 120000, `every table Tracking (chunks before the kill: ${before.join(', ')})`);
    await workload.stop();
    expect(workload.unexpected).toEqual([]);
    await live.waitForWarehouseEqualsSource(90000);
    const afterKill = stagedChunks(stack.logs(), live.replicationId);
    // The stager started after the kill applied only chunks not applied before it (each at most once).
    expect(new Set(afterKill).size).toBe(afterKill.length);
    expect(Date.now() - started).toBeLessThan(240000);
  }, 300000);
});

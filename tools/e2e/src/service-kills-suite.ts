import type { ServiceName } from '@svc/contracts';
import { TestStack, startSecureTestNats } from '@svc/system-testing';
import { ClaimWindowKiller, type ClaimKill } from './claim-window';
import { ConcurrentWorkload } from './concurrent-workload';
import type { EnginePair, SourceSession, WarehouseSession } from './engine-pairs';
import { LIVE_TABLES } from './live-workload';
import { ReplicationPair } from './replication-pair';
import { alterReplication } from './replication-api';
import { workDiagnostics } from './work-diagnostics';

/**
 * Kill rounds: the CI size by default; `npm run test:kill` (KILL_TEST_ROUNDS=200) is the long run of the same
 * test. Every fourth round kills the registry the moment it claims work (the claim/publish window).
 */
const ROUNDS = killRounds(process.env['KILL_TEST_ROUNDS']);
const CLAIM_ROUND_EVERY = 4;
/**
 * Once every kill is over the warehouse must come to equal the source, its watermarks moving all along: a table frozen
 * this long fails the test (the longest wait recovery has, a redelivery after the 15 s ack wait, is well inside it).
 */
const STALL_MS = 45000;
/** The backlog the workload built up during the kills is applied within this, however slow the machine. */
const CATCH_UP_CAP_MS = 180000;
const VICTIMS: ServiceName[] = ['extractor', 'stager', 'loader', 'job-registry'];
/** ChangeTrackingBatchLimit of both replications: the workload's backlog after a kill spans several batches. */
const BATCH_LIMIT = 200;

function killRounds(setting: string | undefined): number {
  const rounds = Number(setting ?? 10);
  if (!Number.isInteger(rounds) || rounds < 4) throw new Error(`KILL_TEST_ROUNDS must be an integer of at least 4, got '${setting}'`);
  return rounds;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const between = (lowMs: number, highMs: number) => lowMs + Math.floor(Math.random() * (highMs - lowMs));

/**
 * SIGKILL of every service at every stage (issue 8, item 14): while a pgbench-like workload writes to the
 * source, a random worker or the registry is killed and started again, round after round; NATS is
 * restarted once; some kills hit the registry between a claim and its publish. Afterwards, within a strict
 * deadline, the Type1 copy equals the source, the Type2 copy's current rows equal it, and neither holds a
 * duplicate.
 */
export function serviceKillsSuite(pairOf: () => EnginePair): void {
  describe(`SIGKILL of a random service, round after round, under a concurrent workload (Type1 and Type2): ${pairOf().name}`, () => {
    const pair0 = pairOf();
    const stack = new TestStack({
      ...(pair0.sourceServer && { sourceServer: pair0.sourceServer }),
      workers: ['extractor', 'stager', 'loader'],
      // The production permission model, nkeys and TLS on the bus (issue 18): kills and the NATS restart with all of it on.
      startNats: startSecureTestNats,
      env: { SCHEDULER_TICK_MS: '100', IDLE_CYCLE_DELAY_MS: '100', SCHEDULER_MINUTE_SECONDS: '2', WORKER_CONCURRENCY: '2', ROW_CHUNK_BYTES: '65536', SEED_CHUNK_KB: '16' },
    });
    const kills: string[] = [];
    const claimKills: ClaimKill[] = [];
    let source: SourceSession;
    let warehouse: WarehouseSession;
    let workload: ConcurrentWorkload;
    let pair: ReplicationPair;
    let claimKiller: ClaimWindowKiller;

    /** What to print when the test fails: the kills in order, and the workload's count. */
    const story = () =>
      `kills: ${kills.join(', ')}\nclaim kills: ${JSON.stringify(claimKills)}\nworkload: ${workload.committed} committed, ${workload.aborted} aborted by conflicts`;

    beforeAll(async () => {
      await stack.start();
      source = await pair0.openSource(stack);
      warehouse = await pair0.openWarehouse(stack);
      await source.createTables(LIVE_TABLES);
      workload = new ConcurrentWorkload({ open: () => pair0.openSource(stack), clients: 3, pauseMs: 50 });
      pair = new ReplicationPair({ stack, source, warehouse, workload, bucketName: 'service-kills', sourceConnectionString: pair0.sourceConnectionString(stack), stagingConnectionString: pair0.stagingConnectionString(stack) });
      claimKiller = new ClaimWindowKiller(stack);
      await claimKiller.start();
    }, 120000);

    afterAll(async () => {
      await workload?.stop();
      await claimKiller?.stop();
      await Promise.allSettled([source?.close(), warehouse?.close()]);
      await stack.stop();
    }, 60000);

    const killAndRestart = async (service: ServiceName) => {
      await stack.killService(service);
      kills.push(service);
      await sleep(between(0, 2000));
      await stack.startService(service);
    };

    it('seeds both replications while a worker and the registry are killed', async () => {
      await pair.create();
      await killAndRestart('extractor');
      await killAndRestart('job-registry');
      await pair.type1.waitFor(() => pair.tracking(), 90000, 'every table of both replications to be Tracking');
      await pair.waitForConvergence(60000);
      // Small batches from now on: the backlog that builds up while a service is down is read as a chain of batches
      // (issue 23), so kills also land between the batches of one cycle.
      for (const live of pair.both) {
        const altered = await alterReplication(stack, live.replicationId, { changeTrackingBatchLimit: String(BATCH_LIMIT) });
        expect({ status: altered.status, body: altered.body }).toEqual({ status: 200, body: '' });
      }
    }, 180000);

    it(`loses nothing and duplicates nothing over ${ROUNDS} kills and a NATS restart`, async () => {
      await workload.start();
      const natsRound = Math.ceil(ROUNDS / 2);
      for (let round = 1; round <= ROUNDS; round += 1) {
        await sleep(between(500, 2500));
        if (round === natsRound) {
          await stack.nats.restart();
          kills.push('nats (restart)');
        } else if (round % CLAIM_ROUND_EVERY === 0) {
          const kill = await claimKiller.killAtNextClaim().catch(async (error: Error) => {
            const [type1, type2, work] = await Promise.all([pair.type1.diagnostics(), pair.type2.diagnostics(), workDiagnostics(stack)]);
            throw new Error(`${error.message}\n${story()}\nType1: ${type1}\nType2: ${type2}\n${work}`);
          });
          claimKills.push(kill);
          kills.push(`job-registry at a claim${kill.inWindow ? ' (before its publish)' : ''}`);
          await sleep(between(0, 2000));
          await stack.startService('job-registry');
        } else {
          await killAndRestart(VICTIMS[Math.floor(Math.random() * VICTIMS.length)] ?? 'loader');
        }
      }
      await workload.stop();
      expect(workload.unexpected).toEqual([]);
      expect(workload.committed).toBeGreaterThan(ROUNDS * 5);

      await pair.waitForConvergenceWhileMoving(STALL_MS, CATCH_UP_CAP_MS).catch(async (error: Error) => {
        throw new Error(`${error.message}\n${story()}\n${await workDiagnostics(stack)}`);
      });
      expect(await pair.duplicates()).toEqual([]);
    }, (ROUNDS * 8 + 60) * 1000 + CATCH_UP_CAP_MS);
  });
}

import type { ClusterInfo, JetStreamManager, NatsConnection } from 'nats';
import { PipelineStreams } from '@svc/contracts';
import { TestStack, startSecureTestNatsCluster } from '@svc/system-testing';
import { waitUntil, type TestNatsCluster, type TestNatsClusterNode } from '@svc/testing';
import { ConcurrentWorkload } from './concurrent-workload';
import { POSTGRES_TO_POSTGRES, type SourceSession, type WarehouseSession } from './engine-pairs';
import { LIVE_TABLES, ORDERS, orderRow } from './live-workload';
import { ReplicationPair } from './replication-pair';
import { insert, transaction } from './suite/changes';

const PIPELINE_STREAMS = [PipelineStreams.work.name, PipelineStreams.rows.name];
/** Rows added to LIVE_SCHEMA's orders so that the seed lasts long enough to lose a node in the middle of it. */
const EXTRA_ORDERS = 100000;

/**
 * The services on a three-node NATS cluster (NATS_URL lists every node, NATS_STREAM_REPLICAS=3), issue 8
 * item 13: the node leading the work stream is killed during the seed of a Type1 and a Type2 replication
 * (and started again), then another during change tracking under a concurrent workload. Both warehouse
 * copies must equal the source, with nothing lost or duplicated.
 */
describe('replication through a three-node NATS cluster with R3 streams, losing a node', () => {
  let cluster: TestNatsCluster;
  const stack = new TestStack({
    ...(POSTGRES_TO_POSTGRES.sourceServer && { sourceServer: POSTGRES_TO_POSTGRES.sourceServer }),
    workers: ['extractor', 'stager', 'loader'],
    // The production permission model, nkeys and TLS (client connections and routes): issue 18.
    startNats: async () => (cluster = await startSecureTestNatsCluster(3)),
    env: {
      NATS_STREAM_REPLICAS: '3',
      SCHEDULER_TICK_MS: '100',
      IDLE_CYCLE_DELAY_MS: '100',
      SCHEDULER_MINUTE_SECONDS: '2',
      WORKER_CONCURRENCY: '2',
      ROW_CHUNK_BYTES: '65536',
      SEED_PART_MB: '1',
      // Every keyed table over 256 KiB is seeded in chunks (orders in ~26): the node is lost while chunks of one seed are
      // in flight. At 64 KiB orders took 104 chunks, each a unit of work: 150 s were not enough on a slower machine.
      SEED_CHUNK_KB: '256',
    },
  });
  let source: SourceSession;
  let warehouse: WarehouseSession;
  let workload: ConcurrentWorkload;
  let pair: ReplicationPair;
  let connection: NatsConnection;
  let manager: JetStreamManager;
  const killed: TestNatsClusterNode[] = [];

  beforeAll(async () => {
    await stack.start();
    source = await POSTGRES_TO_POSTGRES.openSource(stack);
    warehouse = await POSTGRES_TO_POSTGRES.openWarehouse(stack);
    await source.createTables(LIVE_TABLES);
    const extra = Array.from({ length: EXTRA_ORDERS }, (_, index) => orderRow(2001 + index, 'old', Date.UTC(2025, 0, 1), 1000));
    await source.apply(transaction(insert(ORDERS, extra)));
    workload = new ConcurrentWorkload({ open: () => POSTGRES_TO_POSTGRES.openSource(stack), clients: 3, pauseMs: 50 });
    pair = new ReplicationPair({ stack, source, warehouse, workload, bucketName: 'nats-cluster' });
    connection = await stack.connectNats('cluster-e2e');
    manager = await connection.jetstreamManager();
  }, 120000);

  afterAll(async () => {
    await workload?.stop();
    await connection?.close();
    await Promise.allSettled([source?.close(), warehouse?.close()]);
    await stack.stop();
  }, 60000);

  /** The node that leads `stream` now (JetStream elects one per stream). */
  const leaderOf = async (stream: string): Promise<TestNatsClusterNode> => {
    let leader: TestNatsClusterNode | undefined;
    await waitUntil(
      async () => {
        const name = (await manager.streams.info(stream)).cluster?.leader;
        leader = cluster.nodes.find((node) => node.name === name && node.running);
        return leader !== undefined;
      },
      30000,
      `a leader of ${stream}`,
    );
    if (!leader) throw new Error(`no leader of ${stream}`);
    return leader;
  };

  /** A RAFT group (a pipeline stream, or a durable consumer of the work stream) as JetStream reports it now. */
  interface Group {
    name: string;
    leader: string | undefined;
    /** Its leader and the replicas that are current and online: the peers holding every committed entry. */
    upToDate: Set<string>;
    /** Replicas the leader cannot reach. */
    offline: Set<string>;
    peerCount: number;
    described: string;
  }

  const groups = async (): Promise<Group[]> => {
    const found: Group[] = [];
    const add = (name: string, info: ClusterInfo | undefined) => {
      const replicas = info?.replicas ?? [];
      const upToDate = new Set(replicas.filter((replica) => replica.current && replica.offline !== true).map((replica) => replica.name));
      if (info?.leader) upToDate.add(info.leader);
      const offline = new Set(replicas.filter((replica) => replica.offline === true).map((replica) => replica.name));
      const peers = JSON.stringify(replicas.map(({ name: peer, current, offline, lag }) => ({ peer, current, offline, lag })));
      found.push({ name, leader: info?.leader || undefined, upToDate, offline, peerCount: (info?.leader ? 1 : 0) + replicas.length, described: `${name}: leader ${info?.leader ?? 'none'}, ${peers}` });
    };
    for (const stream of PIPELINE_STREAMS) add(stream, (await manager.streams.info(stream)).cluster);
    for await (const consumer of manager.consumers.list(PipelineStreams.work.name)) add(`consumer ${consumer.name}`, consumer.cluster);
    return found;
  };

  /** Polls `groups` until `ready` holds, failing with the state of every group that was not ready at the last look. */
  const waitForGroups = async (deadlineMs: number, what: string, ready: (group: Group) => boolean): Promise<void> => {
    let notReady: string[] = [];
    await waitUntil(
      async () => {
        notReady = (await groups()).filter((group) => !ready(group)).map((group) => group.described);
        return notReady.length === 0;
      },
      deadlineMs,
      what,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${notReady.join('\n')}\n${cluster.nodes.map((node) => node.describe()).join('\n')}`);
    });
  };

  /** Every group on three peers, all up to date. */
  const fullyReplicated = (deadlineMs: number, what: string) => waitForGroups(deadlineMs, what, (group) => group.peerCount === 3 && group.upToDate.size === 3);

  /** Every group has a leader and a quorum of up-to-date peers (two of three): it commits, and survives losing a node that is not one of them. */
  const quorumUpToDate = (deadlineMs: number, what: string) =>
    waitForGroups(deadlineMs, what, (group) => group.leader !== undefined && group.peerCount === 3 && group.upToDate.size >= 2);

  /**
   * A node whose loss is safe: in every group, the two other peers are up to date, so they keep a quorum that holds
   * every committed entry. A replica of a restarted node may stay behind for minutes until its group writes again
   * (JetStream consumer followers catch up on new proposals), so "all three current" is not waited for: killing
   * the node that lags is as safe. The node leading `preferredStream` is chosen when it qualifies.
   */
  const nodeSafeToKill = async (deadlineMs: number, preferredStream: string): Promise<TestNatsClusterNode> => {
    let chosen: TestNatsClusterNode | undefined;
    let last: Group[] = [];
    await waitUntil(
      async () => {
        last = await groups();
        const preferred = (await manager.streams.info(preferredStream)).cluster?.leader;
        const candidates = cluster.nodes.filter((node) => node.running).sort((a, b) => Number(b.name === preferred) - Number(a.name === preferred));
        const othersUpToDate = (node: TestNatsClusterNode, group: Group) =>
          group.peerCount === 3 && [...group.upToDate].filter((peer) => peer !== node.name).length >= 2;
        chosen = candidates.find((node) => last.every((group) => othersUpToDate(node, group)));
        return chosen !== undefined;
      },
      deadlineMs,
      'a node whose loss leaves every stream and consumer an up-to-date quorum',
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${last.map((group) => group.described).join('\n')}\n${cluster.nodes.map((node) => node.describe()).join('\n')}`);
    });
    if (!chosen) throw new Error('no node is safe to kill');
    return chosen;
  };

  it('creates every pipeline stream with three replicas', async () => {
    for (const stream of PIPELINE_STREAMS) {
      const info = await manager.streams.info(stream);
      expect(info.config.num_replicas).toBe(3);
    }
    await fullyReplicated(30000, 'three current replicas of each stream');
  }, 60000);

  it('seeds both replications while the node leading the work stream is killed, and started again', async () => {
    await pair.create();
    await pair.type1.waitFor(async () => Object.values(await pair.type1.phases()).includes('Seeding'), 30000, 'the seed to begin');
    const leader = await leaderOf(PipelineStreams.work.name);
    const phaseAtKill = (await pair.type1.phases())['[public].[orders]'];
    await leader.kill();
    killed.push(leader);
    // The kill fell in the seed: the large table was still being copied.
    expect(phaseAtKill).toBe('Seeding');
    await cluster.waitForMetaLeader();
    await new Promise((done) => setTimeout(done, 3000));
    await leader.start();
    // Back in every group (reachable, if not yet current): a later kill counts on it for a quorum.
    await waitForGroups(60000, `${leader.name} to rejoin every stream and consumer`, (group) => !group.offline.has(leader.name));
    await pair.type1.waitFor(() => pair.tracking(), 150000, 'every table of both replications to be Tracking');
    await pair.waitForConvergence(60000);
    expect(await pair.duplicates()).toEqual([]);
  }, 240000);

  it('follows a concurrent workload while another node is killed, with nothing lost or duplicated', async () => {
    await workload.start();
    const before = await pair.type1.warehouseDigests();
    await pair.type1.waitForMovement(before, 30000, 'the warehouse to follow the workload');

    // Chosen under the workload: its writes are what lets a replica of the restarted node catch up.
    const victim = await nodeSafeToKill(120000, PipelineStreams.work.name);
    await victim.kill();
    killed.push(victim);
    await cluster.waitForMetaLeader();
    // Two of three nodes carry on: changes keep reaching the warehouse.
    const afterKill = await pair.type2.warehouseDigests();
    await pair.type2.waitForMovement(afterKill, 60000, 'the warehouse to follow the workload on two nodes');
    await new Promise((done) => setTimeout(done, 3000));
    await workload.stop();
    expect(workload.unexpected).toEqual([]);

    await pair.waitForConvergence(90000);
    expect(await pair.duplicates()).toEqual([]);
    expect(killed.map((node) => node.name)).toHaveLength(2);

    await victim.start();
    await quorumUpToDate(120000, 'every stream and consumer to have an up-to-date quorum again');
  }, 420000);

  it('never refused a service a subject while nodes were lost and clients moved between them (the roles of bus-roles.ts)', () => {
    // CI once saw the job-registry told PERMISSIONS_VIOLATION right after a node was killed: each node's log says which subject.
    expect(cluster.violations()).toEqual([]);
  });
});

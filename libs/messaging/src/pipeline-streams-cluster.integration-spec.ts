import { AckPolicy, RetentionPolicy, StorageType, type JetStreamManager, type NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, isExtractRequested } from '@svc/contracts';
import { startTestNatsCluster, waitUntil, type TestNatsCluster, type TestNatsClusterNode } from '@svc/testing';
import { connectNats } from './nats-connection';
import { PipelinePublisher } from './pipeline-publisher';
import { ensurePipelineStreams } from './pipeline-streams';
import { publishRowChunks, readRowChunks, rowsSubjectOf } from './row-chunks';
import { PipelineWorker } from './pipeline-worker';
import { extractRequest, workStreamMessageCount } from './testing/jetstream-test-kit';

/** NATS_STREAM_REPLICAS against a real three-node cluster: streams are created and rescaled with that many copies. */
describe('ensurePipelineStreams on a three-node NATS cluster', () => {
  let cluster: TestNatsCluster;
  let connection: NatsConnection;
  let manager: JetStreamManager;

  beforeAll(async () => {
    cluster = await startTestNatsCluster(3);
    // NATS_URL's format: every node, separated by commas.
    connection = await connectNats(cluster.url, 'test-cluster-streams');
    manager = await connection.jetstreamManager();
  }, 60000);

  afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
  });

  const replicasOf = async (stream: string) => {
    const info = await manager.streams.info(stream);
    return { configured: info.config.num_replicas, peers: 1 + (info.cluster?.replicas?.length ?? 0) };
  };

  it('brings existing one-copy streams up to three copies, keeping their messages', async () => {
    await ensurePipelineStreams(connection);
    expect(await replicasOf(PipelineStreams.work.name)).toEqual({ configured: 1, peers: 1 });
    await new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, extractRequest('work-r1'), 'work-r1');
    await manager.consumers.add(PipelineStreams.work.name, { durable_name: 'made-at-r1', ack_policy: AckPolicy.Explicit, filter_subject: PipelineSubjects.workFailed });

    await ensurePipelineStreams(connection, { replicas: 3 });
    for (const stream of [PipelineStreams.work.name, PipelineStreams.rows.name]) {
      await waitUntil(async () => (await replicasOf(stream)).peers === 3, 30000, `${stream} on three peers`);
      expect(await replicasOf(stream)).toEqual({ configured: 3, peers: 3 });
    }
    expect(await workStreamMessageCount(manager)).toBe(1);
    // A durable consumer made before follows its stream to three peers.
    await waitUntil(async () => ((await manager.consumers.info(PipelineStreams.work.name, 'made-at-r1')).cluster?.replicas?.length ?? 0) === 2, 30000, 'the consumer on three peers');
    const work = (await manager.streams.info(PipelineStreams.work.name)).config;
    expect([work.retention, work.storage]).toEqual([RetentionPolicy.Workqueue, StorageType.File]);
  }, 60000);

  it('keeps serving the work stream, consumer included, when the node a client is connected to dies', async () => {
    const received: string[] = [];
    const worker = new PipelineWorker(connection, {
      subject: PipelineSubjects.extractRequested,
      durableName: 'cluster-test',
      concurrency: 1,
      guard: isExtractRequested,
      handle: async (payload) => {
        received.push(payload.workId);
      },
    });
    await worker.start();
    try {
      await waitUntil(async () => received.includes('work-r1'), 20000, 'the message published before rescaling');
      const consumer = await manager.consumers.info(PipelineStreams.work.name, 'cluster-test');
      expect(1 + (consumer.cluster?.replicas?.length ?? 0)).toBe(3);

      const connectedTo = connection.info?.port;
      const node = cluster.nodes.find((each) => each.url.endsWith(`:${connectedTo}`));
      if (!node) throw new Error(`no node listens on ${connectedTo}`);
      await node.kill();
      await cluster.waitForMetaLeader();
      const publisher = new PipelinePublisher(connection);
      await waitUntil(
        async () => {
          await publisher.publish(PipelineSubjects.extractRequested, extractRequest('work-after-kill'), 'work-after-kill');
          return true;
        },
        30000,
        'a publish to be acknowledged by the two remaining nodes',
      );
      await waitUntil(async () => received.includes('work-after-kill'), 30000, 'the message published after the kill');
      expect(received.filter((id) => id === 'work-after-kill')).toHaveLength(1);
      await node.start();
    } finally {
      await worker.stop();
    }
  }, 90000);
});

describe('readRowChunks on a three-node NATS cluster', () => {
  let cluster: TestNatsCluster;
  let connection: NatsConnection;
  let manager: JetStreamManager;

  beforeAll(async () => {
    cluster = await startTestNatsCluster(3);
    connection = await connectNats(cluster.url, 'test-cluster-rows');
    manager = await connection.jetstreamManager();
    await ensurePipelineStreams(connection, { replicas: 3 });
  }, 60000);

  afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
  });

  /** Publishes 40 chunks of 1000 bytes, chunk i filled with byte i. */
  const publishBatch = async (batchId: string): Promise<string> => {
    const subject = rowsSubjectOf(batchId, 'cluster-work');
    async function* chunks() {
      for (let index = 0; index < 40; index += 1) yield Buffer.alloc(1000, index);
    }
    await publishRowChunks(connection, subject, chunks(), { maxChunkBytes: 1000 });
    return subject;
  };

  const nodeNamed = (name: string | undefined): TestNatsClusterNode => {
    const node = cluster.nodes.find((each) => each.name === name);
    if (!node) throw new Error(`no node named ${name}`);
    return node;
  };

  /** Starts the killed node again (unless it runs already) and waits until all three copies of the rows stream are current, so the next kill keeps a quorum. */
  const restore = async (node: TestNatsClusterNode): Promise<void> => {
    if (!node.running) await node.start();
    await waitUntil(
      async () => {
        const info = (await manager.streams.info(PipelineStreams.rows.name)).cluster;
        const replicas = info?.replicas ?? [];
        return info?.leader !== undefined && replicas.length === 2 && replicas.every((replica) => replica.current && replica.offline !== true);
      },
      120000,
      'three current copies of the rows stream',
    );
  };

  /**
   * The idle deadline (5 s) is shorter than the failover (a request to the dead node alone times out after 5 s, and
   * leaders are elected after that): the reader must not count the failover as idleness. The failover itself gets
   * the default deadline, generous for a loaded machine.
   */
  const readAll = async (subject: string, killMidRead: () => Promise<TestNatsClusterNode>): Promise<{ read: number; killed: TestNatsClusterNode }> => {
    let read = 0;
    let killed: TestNatsClusterNode | undefined;
    for await (const chunk of readRowChunks(connection, subject, 40, { idleTimeoutMs: 5000 })) {
      expect(chunk).toEqual(Buffer.alloc(1000, read));
      read += 1;
      // The first chunk comes from the stream leader; the reader's consumer reads from the second on.
      if (read === 2) killed = await killMidRead();
    }
    if (!killed) throw new Error('no node was killed');
    return { read, killed };
  };

  it('reads every chunk although the node holding the reader\'s consumer dies mid-read, however long the failover takes', async () => {
    const subject = await publishBatch('cluster-batch-reader-node');
    const { read, killed } = await readAll(subject, async () => {
      let holder: string | undefined;
      for await (const consumer of manager.consumers.list(PipelineStreams.rows.name)) {
        if (consumer.config.filter_subject === subject) holder = consumer.cluster?.leader;
      }
      const node = nodeNamed(holder);
      await node.kill();
      return node;
    });
    expect(read).toBe(40);
    await restore(killed);
  }, 240000);

  it('reads every chunk although the node leading the rows stream dies mid-read', async () => {
    const subject = await publishBatch('cluster-batch-stream-leader');
    const { read, killed } = await readAll(subject, async () => {
      const node = nodeNamed((await manager.streams.info(PipelineStreams.rows.name)).cluster?.leader);
      await node.kill();
      return node;
    });
    expect(read).toBe(40);
    await restore(killed);
  }, 240000);

  /**
   * A one-replica consumer is placed on any node holding the stream, also on one that was just restarted and whose
   * copy is still catching up: such a consumer sees nothing for a while (on a loaded machine, minutes). The idle
   * deadline (1.5 s) is shorter than a catch-up, so a reader that only waited on its consumer would fail. Rounds are
   * repeated until a reader was seen on a copy that was behind; whether one lands there is up to JetStream's
   * placement, so that is reported, not required (row-chunks.integration-spec.ts covers the fallback itself).
   */
  it('reads every chunk when its consumer lands on a restarted node whose copy of the stream is behind', async () => {
    let readersBehind = 0;
    for (let round = 0; round < 5 && readersBehind === 0; round += 1) {
      const leaderName = (await manager.streams.info(PipelineStreams.rows.name)).cluster?.leader;
      const follower = nodeNamed(cluster.nodes.find((node) => node.name !== leaderName)?.name);
      await follower.kill();
      // What the follower misses makes its catch-up take a while: 25 MB ahead of the batches read.
      async function* filler() {
        for (let index = 0; index < 400; index += 1) yield Buffer.alloc(64 * 1024, index);
      }
      await publishRowChunks(connection, rowsSubjectOf(`cluster-filler-${round}`, 'cluster-work'), filler(), { maxChunkBytes: 64 * 1024 });
      const subjects: string[] = [];
      for (let batch = 0; batch < 12; batch += 1) subjects.push(await publishBatch(`cluster-batch-behind-${round}-${batch}`));
      await follower.start();
      const counts = await Promise.all(
        subjects.map(async (subject) => {
          let read = 0;
          const reader = readRowChunks(connection, subject, 40, { idleTimeoutMs: 1500, onConsumerBehind: () => (readersBehind += 1) });
          for await (const chunk of reader) {
            expect(chunk).toEqual(Buffer.alloc(1000, read));
            read += 1;
          }
          return read;
        }),
      );
      expect(counts).toEqual(subjects.map(() => 40));
      await restore(follower);
    }
    process.stdout.write(`readers that found their consumer behind the leader: ${readersBehind}\n`);
  }, 240000);
});

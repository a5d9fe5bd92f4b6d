import { RetentionPolicy, StorageType, nanos, type JetStreamManager, type NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, Subjects, type WorkFailed } from '@svc/contracts';
import { PipelinePublisher } from './pipeline-publisher';
import { ensurePipelineStreams } from './pipeline-streams';
import { extractRequest, startJetStreamTestServer, workStreamMessageCount, type JetStreamTestServer } from './testing/jetstream-test-kit';

function failure(workId: string): WorkFailed {
  return { workId, replicationId: 'replication-1', table: { schema: 'public', name: 'orders' }, stage: 'load', retryable: true, message: 'x', failedAt: new Date().toISOString() };
}

describe('ensurePipelineStreams', () => {
  let server: JetStreamTestServer;
  let connection: NatsConnection;
  let manager: JetStreamManager;

  beforeEach(async () => {
    server = await startJetStreamTestServer();
    connection = await server.connect('test-streams');
    manager = await server.manager();
  }, 30000);

  afterEach(async () => {
    await server.stop();
  });

  async function expectPipelineStreams(): Promise<void> {
    const work = (await manager.streams.info(PipelineStreams.work.name)).config;
    expect(work).toMatchObject({
      subjects: [...PipelineStreams.work.subjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(10 * 60 * 1000),
      num_replicas: 1,
    });
    const rows = (await manager.streams.info(PipelineStreams.rows.name)).config;
    expect(rows).toMatchObject({
      subjects: [...PipelineStreams.rows.subjects],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(24 * 60 * 60 * 1000),
      max_msg_size: 1024 * 1024,
      num_replicas: 1,
    });
  }

  it('creates the work and rows streams, and a second call changes nothing', async () => {
    await ensurePipelineStreams(connection);
    await expectPipelineStreams();
    await new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, extractRequest('work-1'), 'work-1');

    await ensurePipelineStreams(connection);
    await expectPipelineStreams();
    expect(await workStreamMessageCount(manager)).toBe(1);
  });

  it('is safe when several services start at once', async () => {
    const connections = await Promise.all(['registry', 'extractor', 'stager', 'loader'].map((name) => server.connect(name)));
    await Promise.all(connections.map((each) => ensurePipelineStreams(each)));
    await expectPipelineStreams();
    const names: string[] = [];
    for await (const name of manager.streams.names()) names.push(name);
    expect(names.sort()).toEqual([PipelineStreams.work.name, PipelineStreams.rows.name].sort());
  });

  it('brings an existing stream with other limits up to the pipeline configuration', async () => {
    await manager.streams.add({
      name: PipelineStreams.rows.name,
      subjects: [...PipelineStreams.rows.subjects],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(60 * 60 * 1000),
    });
    await ensurePipelineStreams(connection);
    await expectPipelineStreams();
  });

  it('narrows a work stream created with the earlier subjects (work.>) so that work.cancelled is not captured, keeping its messages', async () => {
    await manager.streams.add({
      name: PipelineStreams.work.name,
      subjects: ['svc.pipeline.v1.extract.>', 'svc.pipeline.v1.batch.>', 'svc.pipeline.v1.work.>'],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
    });
    await new PipelinePublisher(connection).publish(PipelineSubjects.extractRequested, extractRequest('work-1'), 'work-1');
    await ensurePipelineStreams(connection);
    await expectPipelineStreams();
    expect(await workStreamMessageCount(manager)).toBe(1);
    connection.publish(Subjects.workCancelled, new TextEncoder().encode('{}'));
    await new PipelinePublisher(connection).publish(PipelineSubjects.workFailed, failure('work-1'), 'work-1');
    expect(await workStreamMessageCount(manager)).toBe(2);
  });

  it('refuses a work stream created with another retention, which an update cannot change', async () => {
    await manager.streams.add({
      name: PipelineStreams.work.name,
      subjects: [...PipelineStreams.work.subjects],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    });
    await expect(ensurePipelineStreams(connection)).rejects.toThrow(
      `JetStream stream ${PipelineStreams.work.name} exists with retention 'limits' and storage 'file'; the pipeline needs 'workqueue' and 'file'`,
    );
  });
});

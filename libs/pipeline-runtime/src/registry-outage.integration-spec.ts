import { randomBytes, randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { PipelineStreams, PipelineSubjects, guardExtractRequested, isBatchStaged, type BatchStaged, type ExtractRequested, type ExtractWork } from '@svc/contracts';
import { NatsRequester, PipelinePublisher, PipelineWorker, connectNats, ensurePipelineStreams } from '@svc/messaging';
import { RuntimeConfigSeal, parseMasterKey } from '@svc/crypto';
import { ServiceProcess } from '@svc/system-testing';
import { TEST_WORKER_KEY, reserveTempDatabase, sampleChangeBatch, startTestNats, waitUntil, type TempDatabase, type TestNats } from '@svc/testing';
import { runClassified } from './classified-work';
import { RuntimeConfigClient } from './runtime-config.client';

/**
 * A worker whose work needs the registry (its runtime configuration) while no registry runs, then the
 * real job-registry process starts: the work waits for it in place and completes at its first delivery,
 * instead of burning its deliveries on "no service answers" and being given up.
 */
describe('a worker while the registry is down', () => {
  const OUTAGE_MS = 20000;
  let natsServer: TestNats;
  let nats: NatsConnection;
  let database: TempDatabase;
  let registry: ServiceProcess | undefined;
  let worker: PipelineWorker<typeof PipelineSubjects.extractRequested> | undefined;

  beforeAll(async () => {
    natsServer = await startTestNats();
    nats = await connectNats(natsServer.url, 'registry-outage-test');
    await ensurePipelineStreams(nats);
    database = reserveTempDatabase('svc_registry_outage');
  });

  afterAll(async () => {
    await worker?.stop();
    await registry?.stop();
    await nats?.drain();
    await natsServer?.stop();
    await database?.drop();
  });

  it(`completes work at its first delivery after ${OUTAGE_MS / 1000} s without a registry`, async () => {
    const configs = new RuntimeConfigClient(new NatsRequester(nats, 1000), new RuntimeConfigSeal(parseMasterKey(TEST_WORKER_KEY)));
    const deliveries: number[] = [];
    const completed: number[] = [];
    const givenUp: string[] = [];
    worker = new PipelineWorker(nats, {
      subject: PipelineSubjects.extractRequested,
      durableName: `outage-${randomUUID().slice(0, 8)}`,
      concurrency: 1,
      // Short, so that holding the message without heartbeats would show as a redelivery.
      ackWaitMs: 3000,
      maxDeliver: 5,
      guard: (payload): payload is ExtractWork => guardExtractRequested(payload).ok,
      handle: async (work, context) => {
        deliveries.push(context.deliveryCount);
        // The replication does not exist: the registry's answer (gone) completes the work without a source.
        await runClassified(() => configs.configOf((work as ExtractRequested).replicationId).then(() => undefined), { endpoint: 'Source' }, () => Promise.resolve());
        completed.push(context.deliveryCount);
      },
      onGiveUp: (_payload, reason) => {
        givenUp.push(reason);
        return Promise.resolve();
      },
    });
    await worker.start();
    const work: ExtractRequested = {
      workId: randomUUID(),
      replicationId: randomUUID(),
      table: { schema: 'public', name: 'orders' },
      kind: 'changes',
      track: true,
      fromVersion: '1',
      batchLimit: 100,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
    await new PipelinePublisher(nats).publish(PipelineSubjects.extractRequested, work, work.workId);
    await waitUntil(async () => deliveries.length > 0, 10000, 'the first delivery');

    // The outage itself: nothing answers on the registry's subjects for this long.
    await new Promise((resume) => setTimeout(resume, OUTAGE_MS));
    expect(givenUp).toEqual([]);

    registry = new ServiceProcess('job-registry', {
      NATS_URL: natsServer.url,
      DATABASE_URL: database.url,
      SVC_MASTER_KEY: randomBytes(32).toString('hex'),
      SVC_WORKER_KEY: TEST_WORKER_KEY,
      SCHEDULER_ENABLED: 'false',
      LOG_LEVEL: 'warn',
    });
    registry.start();
    await waitUntil(async () => {
      if (registry?.exited) throw new Error(`job-registry exited:\n${registry.logs()}`);
      return completed.length > 0 || givenUp.length > 0;
    }, 30000, 'the work to complete once the registry is back');
    expect(givenUp).toEqual([]);
    expect(completed).toEqual([1]);
    expect(deliveries).toEqual([1]);
  }, 90000);
});

/**
 * A loader process waiting for a registry that does not answer is told to stop (SIGTERM): it stops within
 * seconds, hands its message back at once for the next process, and reports no failure.
 */
describe('a worker shutting down while the registry is down', () => {
  let natsServer: TestNats;
  let nats: NatsConnection;
  let loader: ServiceProcess | undefined;
  let nextProcess: PipelineWorker<typeof PipelineSubjects.batchStaged> | undefined;

  beforeAll(async () => {
    natsServer = await startTestNats();
    nats = await connectNats(natsServer.url, 'registry-outage-stop-test');
    await ensurePipelineStreams(nats);
  });

  afterAll(async () => {
    await nextProcess?.stop();
    await loader?.stop('SIGKILL');
    await nats?.drain();
    await natsServer?.stop();
  });

  it('stops within seconds and hands its message back at once, without a failure report', async () => {
    loader = new ServiceProcess('loader', { NATS_URL: natsServer.url, SVC_WORKER_KEY: TEST_WORKER_KEY, LOG_LEVEL: 'warn', S3_ENDPOINT: 'http://127.0.0.1:9' });
    loader.start();
    const manager = await nats.jetstreamManager();
    await waitUntil(async () => {
      if (loader?.exited) throw new Error(`loader exited:\n${loader.logs()}`);
      return (await manager.consumers.list(PipelineStreams.work.name).next()).some((consumer) => consumer.name === 'loader');
    }, 30000, 'the loader to consume');
    const replicationId = randomUUID();
    const event: BatchStaged = {
      workId: randomUUID(),
      batch: sampleChangeBatch(replicationId, { from: 1, to: 2 }, 1),
      files: { bucket: 'b', manifestKey: 'f/m.json', partKeys: [] },
      rowCount: 0,
      addedColumns: [],
      extractedAt: new Date().toISOString(),
    };
    await new PipelinePublisher(nats).publish(PipelineSubjects.batchStaged, event, event.workId);
    await waitUntil(async () => (await manager.consumers.info(PipelineStreams.work.name, 'loader')).num_ack_pending === 1, 10000, 'the loader to take the batch');
    // Waiting for the registry now (its default wait: 5 minutes).
    await new Promise((resume) => setTimeout(resume, 1500));

    const stopAsked = Date.now();
    await loader.stop();
    expect(Date.now() - stopAsked).toBeLessThan(3000);

    // The next process gets it at once (not after the 30 s ack deadline), and no failure was reported.
    const taken: number[] = [];
    nextProcess = new PipelineWorker(nats, {
      subject: PipelineSubjects.batchStaged,
      durableName: 'loader',
      concurrency: 1,
      guard: isBatchStaged,
      handle: async (_payload, context) => {
        taken.push(context.deliveryCount);
      },
    });
    await nextProcess.start();
    await waitUntil(async () => taken.length > 0, 8000, 'the next process to take the batch');
    await expect(manager.streams.getMessage(PipelineStreams.work.name, { last_by_subj: PipelineSubjects.workFailed })).rejects.toThrow();
  }, 60000);
});

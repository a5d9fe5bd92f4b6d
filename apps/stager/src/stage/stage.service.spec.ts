import { loadWorkerConfig } from '@svc/config';
import { PipelineSubjects, type BatchDescriptor, type BatchExtracted } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { CancelledWork, rowsSubjectOf } from '@svc/messaging';
import { EngineRegistry } from '@svc/pipeline-runtime';
import { FakeEngine, RecordingPublisher, staticConfigs } from '@svc/pipeline-runtime/testing';
import { SAMPLE_PEOPLE_TABLE, TEST_WORKER_KEY, sampleChangeBatch, sampleReplicationConfig } from '@svc/testing';
import type { NatsConnection } from 'nats';
import { StageService } from './stage.service';

const REPLICATION_ID = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f';

/** NATS as far as the stager's decisions before reading rows go: it only purges a rows subject, which is recorded. */
function purgeOnlyNats(purged: string[]): NatsConnection {
  const connection = {
    jetstreamManager: async () => ({ streams: { purge: async (_stream: string, options: { filter: string }) => (purged.push(options.filter), { purged: 0 }) } }),
    jetstream: () => {
      throw new Error('the rows of this batch must not be read');
    },
  };
  return connection as unknown as NatsConnection;
}

const extracted = (batch: BatchDescriptor, workId: string): BatchExtracted => ({
  workId,
  batch,
  rowsSubject: rowsSubjectOf(batch.batchId, 'work-1'),
  chunkCount: 1,
  rowCount: 2,
  extractedAt: '2026-11-24T00:00:00.000Z',
});

/** The stager's decisions against a fake staging database: batches it drops or reseeds without reading their rows. */
describe('StageService with a fake engine', () => {
  let engine: FakeEngine;
  let publisher: RecordingPublisher;
  let purged: string[];
  let service: StageService;

  beforeEach(() => {
    engine = new FakeEngine();
    publisher = new RecordingPublisher();
    purged = [];
    service = new StageService(
      new EngineRegistry(engine.table()),
      staticConfigs({ [REPLICATION_ID]: sampleReplicationConfig() }),
      publisher.asPublisher(),
      new JsonLogger('stager', 'error', () => undefined),
      purgeOnlyNats(purged),
      loadWorkerConfig({ SVC_WORKER_KEY: TEST_WORKER_KEY }),
      new AbortController(),
      new CancelledWork(purgeOnlyNats([])),
    );
  });

  it('drops a batch of older work without reading its rows, telling the registry only that it was fenced out (issue 40)', async () => {
    await engine.staging.ensureTable(SAMPLE_PEOPLE_TABLE);
    engine.staging.applied.raiseFence(REPLICATION_ID, SAMPLE_PEOPLE_TABLE.table, 5);

    await service.stage(extracted(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 4), 'work-stale'));

    // The registry ignores it for work it released; for work it still holds, its control database is older than staging.
    expect(publisher.payloadsOn(PipelineSubjects.workFailed)).toEqual([
      expect.objectContaining({ workId: 'work-stale', stage: 'stage', epoch: 4, fencedOut: true, reseed: true, retryable: true }),
    ]);
    expect(publisher.payloadsOn(PipelineSubjects.batchStaged)).toEqual([]);
    expect(engine.staging.applied.batchIds.size).toBe(0);
  });

  it('reseeds a table whose staging table is gone, and purges the rows it will never read', async () => {
    const batch = sampleChangeBatch(REPLICATION_ID, { from: 1, to: 2 }, 1);

    await service.stage(extracted(batch, 'work-lost'));

    expect(publisher.payloadsOn(PipelineSubjects.workFailed)).toEqual([expect.objectContaining({ workId: 'work-lost', stage: 'stage', reseed: true })]);
    expect(publisher.payloadsOn(PipelineSubjects.batchStaged)).toEqual([]);
    expect(purged).toEqual([rowsSubjectOf(batch.batchId, 'work-1')]);
  });
});

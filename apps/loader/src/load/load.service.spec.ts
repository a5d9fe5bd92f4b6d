import { loadWorkerConfig } from '@svc/config';
import { PipelineSubjects, type BatchDescriptor, type BatchStaged } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { CancelledWork } from '@svc/messaging';
import type { NatsConnection } from 'nats';
import { EngineRegistry, changeBatchId, seedBatchId } from '@svc/pipeline-runtime';
import { FakeEngine, RecordingPublisher, staticConfigs } from '@svc/pipeline-runtime/testing';
import { SAMPLE_PEOPLE_TABLE, TEST_WORKER_KEY, sampleChangeBatch, sampleReplicationConfig } from '@svc/testing';
import { loadConsumer } from './load.consumer';
import { LoadService } from './load.service';

const REPLICATION_ID = '5b0f6c1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e';
const config = sampleReplicationConfig({ warehouse: { databaseSchema: 'dwh' } });
const tableOptions = { schema: 'dwh', scdType: config.warehouse.scdType, addUpdateTimestamp: config.addUpdateTimestamp };

const staged = (batch: BatchDescriptor, workId = `work-${batch.batchId}`): BatchStaged => ({
  workId,
  batch,
  files: { bucket: config.warehouse.bucketName, manifestKey: 'f/manifest.json', partKeys: [] },
  rowCount: 2,
  addedColumns: [],
  extractedAt: '2026-11-24T00:00:00.000Z',
});

const seedPart = (part: number, epoch: number): BatchDescriptor => ({
  batchId: seedBatchId(REPLICATION_ID, SAMPLE_PEOPLE_TABLE.table, 'seed-1', part),
  replicationId: REPLICATION_ID,
  epoch,
  definition: SAMPLE_PEOPLE_TABLE,
  body: { kind: 'seed', seedId: 'seed-1', part, final: true, startVersion: '42' },
});

/** The loader's decisions against a fake warehouse: what it loads, drops, and reports. */
describe('LoadService with a fake engine', () => {
  let engine: FakeEngine;
  let publisher: RecordingPublisher;
  let service: LoadService;
  const logLines: string[] = [];

  beforeEach(() => {
    engine = new FakeEngine();
    publisher = new RecordingPublisher();
    service = new LoadService(
      new EngineRegistry(engine.table()),
      staticConfigs({ [REPLICATION_ID]: config }),
      publisher.asPublisher(),
      new JsonLogger('loader', 'debug', (line) => logLines.push(line)),
      loadWorkerConfig({ SVC_WORKER_KEY: TEST_WORKER_KEY }),
      new AbortController(),
      new CancelledWork({} as NatsConnection),
    );
  });

  it('loads a change batch into an existing table and reports it loaded at its upper version', async () => {
    await engine.warehouse.ensureTable(SAMPLE_PEOPLE_TABLE, tableOptions);
    const batch = sampleChangeBatch(REPLICATION_ID, { from: 10, to: 20 }, 1);

    await service.load(staged(batch, 'work-1'));

    expect(engine.warehouse.loaded.batchIds).toEqual(new Set([batch.batchId]));
    expect(publisher.published).toEqual([
      expect.objectContaining({ subject: PipelineSubjects.batchLoaded, messageId: `work-1/${batch.batchId}/${batch.epoch}` }),
    ]);
    expect(publisher.payloadsOn(PipelineSubjects.batchLoaded)[0]).toMatchObject({ workId: 'work-1', batchId: batch.batchId, kind: 'changes', version: '20', addedColumns: [] });
  });

  it('creates the table for the first part of a seed and reports the seed\'s start version', async () => {
    await service.load(staged(seedPart(0, 1)));

    expect(await engine.warehouse.hasTable(SAMPLE_PEOPLE_TABLE.table, tableOptions)).toBe(true);
    expect(publisher.payloadsOn(PipelineSubjects.batchLoaded)[0]).toMatchObject({ kind: 'seed', part: 0, final: true, version: '42' });
  });

  it('drops a batch of older work (its epoch below the table\'s fence): nothing loaded, only "fenced out" reported (issue 40)', async () => {
    await engine.warehouse.ensureTable(SAMPLE_PEOPLE_TABLE, tableOptions);
    await service.load(staged(sampleChangeBatch(REPLICATION_ID, { from: 20, to: 30 }, 5)));
    const older = sampleChangeBatch(REPLICATION_ID, { from: 10, to: 20 }, 4);

    await service.load(staged(older));

    expect(engine.warehouse.loaded.batchIds.has(older.batchId)).toBe(false);
    expect(publisher.payloadsOn(PipelineSubjects.batchLoaded)).toHaveLength(1);
    expect(publisher.payloadsOn(PipelineSubjects.workFailed)).toEqual([expect.objectContaining({ stage: 'load', epoch: 4, fencedOut: true, reseed: true })]);
  });

  it('reseeds a table whose warehouse table is gone when a change batch arrives', async () => {
    const batch = sampleChangeBatch(REPLICATION_ID, { from: 10, to: 20 }, 1);

    await service.load(staged(batch, 'work-2'));

    expect(engine.warehouse.loaded.batchIds.size).toBe(0);
    expect(publisher.payloadsOn(PipelineSubjects.workFailed)).toEqual([
      expect.objectContaining({ workId: 'work-2', stage: 'load', retryable: true, scope: 'table', reseed: true }),
    ]);
    expect(publisher.payloadsOn(PipelineSubjects.batchLoaded)).toEqual([]);
  });

  it('lets a warehouse failure reach the worker (which classifies and retries it)', async () => {
    await engine.warehouse.ensureTable(SAMPLE_PEOPLE_TABLE, tableOptions);
    engine.warehouse.faults.failNext('loadBatch', Object.assign(new Error('deadlock detected'), { code: '40P01' }));

    await expect(service.load(staged(sampleChangeBatch(REPLICATION_ID, { from: 10, to: 20 }, 1)))).rejects.toThrow('deadlock detected');
    expect(publisher.published).toEqual([]);
  });

  describe('a group of small tables\' change batches (issue 39, item 4)', () => {
    /** The same change batch of another table (its own batch id). */
    const ofTable = (name: string, batch: BatchDescriptor): BatchDescriptor => {
      const table = { schema: 'public', name };
      const body = batch.body.kind === 'changes' ? batch.body : { kind: 'changes' as const, fromVersion: '0', toVersion: '1' };
      return { ...batch, batchId: changeBatchId(REPLICATION_ID, table, body.fromVersion, body.toVersion), definition: { ...batch.definition, table } };
    };
    const people = sampleChangeBatch(REPLICATION_ID, { from: 10, to: 20 }, 3);
    const others = ofTable('others', people);

    beforeEach(async () => {
      await engine.warehouse.ensureTable(people.definition, tableOptions);
      await engine.warehouse.ensureTable(others.definition, tableOptions);
    });

    it('loads every member in one call and reports each loaded as it would be alone', async () => {
      await service.loadGroup({ workId: 'group-1', group: [staged(people, 'work-p'), staged(others, 'work-o')] });

      expect(engine.warehouse.loaded.batchIds).toEqual(new Set([people.batchId, others.batchId]));
      expect(publisher.published.map(({ subject, messageId }) => ({ subject, messageId }))).toEqual([
        { subject: PipelineSubjects.batchLoaded, messageId: `work-p/${people.batchId}/3` },
        { subject: PipelineSubjects.batchLoaded, messageId: `work-o/${others.batchId}/3` },
      ]);
    });

    it('returns every member to be loaded alone when the group\'s transaction fails, having loaded none of them', async () => {
      engine.warehouse.faults.failNext('loadBatch', Object.assign(new Error('deadlock detected'), { code: '40P01' }));

      const alone = await service.loadGroup({ workId: 'group-1', group: [staged(people, 'work-p'), staged(others, 'work-o')] });

      expect(alone).toEqual([staged(people, 'work-p'), staged(others, 'work-o')]);
      expect(engine.warehouse.loaded.batchIds.size).toBe(0);
      expect(publisher.published).toEqual([]);
    });

    it('loads the members alone in the group\'s own handler, never sending them back on its input subject (the bus roles forbid it)', async () => {
      engine.warehouse.faults.failNext('loadBatch', Object.assign(new Error('deadlock detected'), { code: '40P01' }));
      const consumer = loadConsumer(service, loadWorkerConfig({ SVC_WORKER_KEY: TEST_WORKER_KEY }));

      await consumer.handle({ workId: 'group-1', group: [staged(people, 'work-p'), staged(others, 'work-o')] }, { deliveryCount: 1 });

      expect(engine.warehouse.loaded.batchIds).toEqual(new Set([people.batchId, others.batchId]));
      expect(publisher.published.map(({ subject, messageId }) => ({ subject, messageId }))).toEqual([
        { subject: PipelineSubjects.batchLoaded, messageId: `work-p/${people.batchId}/3` },
        { subject: PipelineSubjects.batchLoaded, messageId: `work-o/${others.batchId}/3` },
      ]);
    });

    it('reports a member that fails alone too as failed (retryable), and still loads the others', async () => {
      const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });
      engine.warehouse.faults.failNext('loadBatch', deadlock());
      engine.warehouse.faults.failNext('loadBatch', deadlock());
      const consumer = loadConsumer(service, loadWorkerConfig({ SVC_WORKER_KEY: TEST_WORKER_KEY }));

      await consumer.handle({ workId: 'group-1', group: [staged(people, 'work-p'), staged(others, 'work-o')] }, { deliveryCount: 1 });

      expect(engine.warehouse.loaded.batchIds).toEqual(new Set([others.batchId]));
      expect(publisher.payloadsOn(PipelineSubjects.workFailed)).toEqual([expect.objectContaining({ workId: 'work-p', stage: 'load', retryable: true, scope: 'table' })]);
      expect(publisher.payloadsOn(PipelineSubjects.batchLoaded)).toEqual([expect.objectContaining({ workId: 'work-o' })]);
      expect(publisher.payloadsOn(PipelineSubjects.batchStaged)).toEqual([]);
    });

    it('trusts a table it ensured before without a look: one dropped behind its back fails the group, whose members are then returned to go alone', async () => {
      await service.loadGroup({ workId: 'group-0', group: [staged(sampleChangeBatch(REPLICATION_ID, { from: 1, to: 10 }, 3), 'work-0'), staged(ofTable('others', sampleChangeBatch(REPLICATION_ID, { from: 1, to: 10 }, 3)), 'work-00')] });
      publisher.published.splice(0);
      engine.warehouse.tables.delete(`dwh.${engine.warehouse.targetTableName(others.definition.table)}`);

      const alone = await service.loadGroup({ workId: 'group-1', group: [staged(people, 'work-p'), staged(others, 'work-o')] });

      expect(engine.warehouse.loaded.batchIds.has(people.batchId)).toBe(false);
      expect(alone.map((member) => member.workId)).toEqual(['work-p', 'work-o']);
      expect(publisher.published).toEqual([]);
    });

    it('reseeds a member whose warehouse table is gone and fences out a stale one, loading the rest', async () => {
      const lost = ofTable('lost', people);
      await service.load(staged({ ...others, batchId: 'newer', epoch: 5 }, 'work-newer'));
      publisher.published.splice(0);

      await service.loadGroup({ workId: 'group-1', group: [staged(people, 'work-p'), staged(others, 'work-o'), staged(lost, 'work-l')] });

      expect(engine.warehouse.loaded.batchIds.has(people.batchId)).toBe(true);
      expect(engine.warehouse.loaded.batchIds.has(others.batchId)).toBe(false);
      expect(publisher.payloadsOn(PipelineSubjects.batchLoaded)).toEqual([expect.objectContaining({ workId: 'work-p' })]);
      expect(publisher.payloadsOn(PipelineSubjects.workFailed)).toEqual([
        expect.objectContaining({ workId: 'work-l', reseed: true }),
        expect.objectContaining({ workId: 'work-o', fencedOut: true }),
      ]);
    });
  });
});

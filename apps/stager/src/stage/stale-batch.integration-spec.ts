import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { loadWorkerConfig } from '@svc/config';
import { PipelineStreams, PipelineSubjects, type BatchDescriptor, type ReplicationConfig } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { publishRowChunks, rowsSubjectOf } from '@svc/messaging';
import { listenOnNats, natsMicroserviceOptions } from '@svc/messaging-nest';
import { EngineRegistry, batchFolderName } from '@svc/pipeline-runtime';
import { startPipelineServiceHarness, type PipelineServiceHarness } from '@svc/system-testing';
import { SAMPLE_PEOPLE_TABLE, TEST_S3_ACCOUNT, createTempDatabase, sampleChangeBatch, sampleReplicationConfig, waitForLockWaiters, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { AppModule } from '../app.module';

const REPLICATION_ID = '5e2c8a1d-9f3b-4d6e-a7c0-b1d2e3f4a5b6';
const BUCKET = 'svc-stale-test';

const changeBatch = (from: number, to: number, epoch: number): BatchDescriptor => sampleChangeBatch(REPLICATION_ID, { from, to }, epoch);

/** The stager drops a batch of cancelled work (an epoch below the table's fence): not applied, no files, not forwarded. */
describe('stager: stale batches', () => {
  let stagingDb: TempDatabase;
  let staging: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchStaged>;
  const logLines: string[] = [];

  const objectEventsOf = (batch: BatchDescriptor): string[] =>
    harness.s3.events.filter((event) => event.key.includes(`/${batchFolderName(batch.batchId)}/`)).map((event) => `${event.name} ${event.key.split('/').pop() ?? ''}`);
  const peopleRows = async (): Promise<string[]> => (await staging.query<{ row: string }>('SELECT id || \':\' || name AS row FROM public.people ORDER BY id')).rows.map((row) => row.row);

  async function extracted(batch: BatchDescriptor, csv: string): Promise<string> {
    const workId = randomUUID();
    const rowsSubject = rowsSubjectOf(batch.batchId, workId);
    const { chunkCount } = await publishRowChunks(harness.connection, rowsSubject, (async function* () {
      yield Buffer.from(csv);
    })());
    const rowCount = csv.split('\n').filter((line) => line !== '').length;
    await harness.publisher.publish(PipelineSubjects.batchExtracted, { workId, batch, rowsSubject, chunkCount, rowCount, extractedAt: new Date().toISOString() }, workId);
    return workId;
  }

  beforeAll(async () => {
    stagingDb = await createTempDatabase('svc_stager_stale');
    staging = new Client({ connectionString: stagingDb.url });
    await staging.connect();
    // The table was seeded before: a change batch for a staging table that does not exist reseeds the table instead.
    const engines = new EngineRegistry();
    await engines.staging(replicationConfig(stagingDb.url)).ensureTable(SAMPLE_PEOPLE_TABLE);
    await engines.closeAll();
    harness = await startPipelineServiceHarness({
      service: 'stager',
      testName: 'stale-batch-test',
      configs: new Map([[REPLICATION_ID, replicationConfig(stagingDb.url)]]),
      buckets: [BUCKET],
      resultSubject: PipelineSubjects.batchStaged,
      startService: async (environment) => {
        const logger = new JsonLogger('stager', 'debug', (line) => logLines.push(line));
        const app = await NestFactory.createMicroservice(AppModule.forConfig(loadWorkerConfig(environment), logger), {
          ...natsMicroserviceOptions(environment.NATS_URL, 'stager'),
          logger: false,
        });
        await listenOnNats(app);
        return app;
      },
    });

    // Newer work (epoch 5) has been staged: the fence of public.people is at 5.
    const newer = await extracted(changeBatch(100, 200, 5), 'I,1,Ann\nI,2,Bob\n');
    await waitUntil(async () => harness.resultsOf(newer).length === 1, 20000, 'the newer batch to be staged');
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await staging?.end();
    await stagingDb?.drop();
  });

  it('drops a batch of older work before writing anything: staging unchanged, no files, not forwarded', async () => {
    const stale = changeBatch(100, 150, 4);
    const workId = await extracted(stale, 'D,1,\nI,3,Old Cy\n');
    await harness.idle();
    expect(harness.resultsOf(workId)).toEqual([]);
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bob']);
    expect(objectEventsOf(stale)).toEqual([]);
    expect(logLines.some((line) => line.includes('dropped a stale batch') && line.includes(workId))).toBe(true);
    // Its rows are its work's alone (rowsSubjectOf): they go with it instead of waiting in the stream to expire.
    const stream = await (await harness.connection.jetstreamManager()).streams.info(PipelineStreams.rows.name, { subjects_filter: rowsSubjectOf(stale.batchId, workId) });
    expect(stream.state.subjects ?? {}).toEqual({});
  });

  it('leaves the files of a newer batch of the same id alone (no overwrite, no delete)', async () => {
    const newer = changeBatch(100, 200, 5);
    const before = objectEventsOf(newer);
    expect(before.length).toBeGreaterThan(0);
    const workId = await extracted({ ...newer, epoch: 3 }, 'D,1,\nD,2,\n');
    await harness.idle();
    expect(harness.resultsOf(workId)).toEqual([]);
    expect(objectEventsOf(newer)).toEqual(before);
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bob']);
  });

  it('drops a batch found stale only inside its transaction (newer work committed while it waited for the table): its rows are never read, so no file is written', async () => {
    const blocker = new Client({ connectionString: stagingDb.url });
    await blocker.connect();
    const stale = changeBatch(200, 250, 5);
    let workId = '';
    try {
      // A newer unit (epoch 6) applying to the table right now: it holds the table lock and has raised the fence, uncommitted.
      await blocker.query('BEGIN');
      await blocker.query(`SELECT pg_advisory_xact_lock(hashtext('svc_staging.table:' || 'public' || '.' || 'people'))`);
      await blocker.query(`UPDATE svc_staging.table_fences SET epoch = 6 WHERE replication_id = $1 AND schema = 'public' AND name = 'people'`, [REPLICATION_ID]);
      workId = await extracted(stale, 'D,1,\nI,4,Late Dee\n');
      await waitForLockWaiters(blocker, 1, 'the stager to wait for the table lock');
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }
    await harness.idle();
    expect(harness.resultsOf(workId)).toEqual([]);
    expect(objectEventsOf(stale)).toEqual([]);
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bob']);
  });

  it('stages a batch of the current epoch as before', async () => {
    const workId = await extracted(changeBatch(200, 300, 6), 'U,2,Bobby\n');
    await waitUntil(async () => harness.resultsOf(workId).length === 1, 20000, 'the current batch to be staged');
    // Its BatchStaged may come before staging has applied it (files are handed on while staging applies, awaitsStaging).
    await waitUntil(async () => (await peopleRows()).includes('2:Bobby'), 20000, 'staging to apply the current batch');
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bobby']);
  });
});

/** Staging in the given database, files in the test bucket (the test S3 server's one account); every log line kept. */
function replicationConfig(stagingUrl: string): ReplicationConfig {
  return sampleReplicationConfig({
    replicationName: 'stale-batch-test',
    isLogErrorsOnly: false,
    staging: { connectionString: stagingUrl },
    warehouse: { accessKey: TEST_S3_ACCOUNT.accessKeyId, secretKey: TEST_S3_ACCOUNT.secretAccessKey, bucketName: BUCKET, bucketFolderName: 'f' },
  });
}

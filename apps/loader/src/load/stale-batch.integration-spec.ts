import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { loadWorkerConfig } from '@svc/config';
import { PipelineSubjects, type BatchDescriptor, type ReplicationConfig } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { listenOnNats, natsMicroserviceOptions } from '@svc/messaging-nest';
import { BatchFileWriter, createS3Client } from '@svc/storage';
import { startPipelineServiceHarness, type PipelineServiceHarness } from '@svc/system-testing';
import { SAMPLE_PEOPLE_TABLE, TEST_S3_ACCOUNT, TEST_POSTGRES_URL, createTempDatabase, sampleChangeBatch, sampleReplicationConfig, waitForLockWaiters, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { EngineRegistry } from '@svc/pipeline-runtime';
import { AppModule } from '../app.module';

const REPLICATION_ID = '8d4f2b6a-1c3e-4a5b-9d7f-0e1a2b3c4d5e';
const BUCKET = 'svc-stale-test';
const SCHEMA = 'dwh';

const changeBatch = (from: number, to: number, epoch: number): BatchDescriptor => sampleChangeBatch(REPLICATION_ID, { from, to }, epoch);

/** The loader drops a batch of cancelled work (an epoch below the table's fence): not loaded, not reported loaded. */
describe('loader: stale batches', () => {
  let warehouseDb: TempDatabase;
  let warehouse: Client;
  let config: ReplicationConfig;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchLoaded>;
  const logLines: string[] = [];

  const peopleRows = async (): Promise<string[]> =>
    (await warehouse.query<{ row: string }>(`SELECT id || ':' || name AS row FROM ${SCHEMA}.people ORDER BY id`)).rows.map((row) => row.row);

  /** Writes the batch's files to the bucket, as the stager does, and announces them. */
  async function staged(batch: BatchDescriptor, csv: string): Promise<string> {
    const workId = randomUUID();
    const writer = new BatchFileWriter(createS3Client(config.warehouse, { endpoint: harness.s3.endpoint, allowBucketCreation: false }), BUCKET, `f/${workId}`);
    await writer.write(Buffer.from(csv));
    const files = await writer.finish();
    const rowCount = csv.split('\n').filter((line) => line !== '').length;
    await harness.publisher.publish(PipelineSubjects.batchStaged, { workId, batch, files, rowCount, addedColumns: [], extractedAt: new Date().toISOString() }, workId);
    return workId;
  }

  beforeAll(async () => {
    warehouseDb = await createTempDatabase('svc_loader_stale');
    warehouse = new Client({ connectionString: warehouseDb.url });
    await warehouse.connect();
    config = replicationConfig(warehouseDb.name);
    // The table was seeded before: a change batch for a warehouse table that does not exist reseeds the table instead.
    const engines = new EngineRegistry();
    await engines.warehouse(config).ensureTable(SAMPLE_PEOPLE_TABLE, { schema: SCHEMA, scdType: config.warehouse.scdType, addUpdateTimestamp: config.addUpdateTimestamp });
    await engines.closeAll();
    harness = await startPipelineServiceHarness({
      service: 'loader',
      testName: 'stale-batch-test',
      configs: new Map([[REPLICATION_ID, config]]),
      buckets: [BUCKET],
      resultSubject: PipelineSubjects.batchLoaded,
      startService: async (environment) => {
        const logger = new JsonLogger('loader', 'debug', (line) => logLines.push(line));
        const app = await NestFactory.createMicroservice(AppModule.forConfig(loadWorkerConfig(environment), logger), {
          ...natsMicroserviceOptions(environment.NATS_URL, 'loader'),
          logger: false,
        });
        await listenOnNats(app);
        return app;
      },
    });

    // Newer work (epoch 5) has been loaded: the fence of the warehouse table is at 5.
    const newer = await staged(changeBatch(100, 200, 5), 'I,1,Ann\nI,2,Bob\n');
    await waitUntil(async () => harness.resultsOf(newer).length === 1, 20000, 'the newer batch to be loaded');
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await warehouse?.end();
    await warehouseDb?.drop();
  });

  it('drops a batch of older work: the warehouse unchanged, nothing reported loaded', async () => {
    const workId = await staged(changeBatch(100, 150, 4), 'D,1,\nI,3,Old Cy\n');
    await harness.idle();
    expect(harness.resultsOf(workId)).toEqual([]);
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bob']);
    expect(logLines.some((line) => line.includes('dropped a stale batch') && line.includes(workId))).toBe(true);
  });

  it('drops a batch found stale only inside its transaction (newer work committed while it waited for the table)', async () => {
    const blocker = new Client({ connectionString: warehouseDb.url });
    await blocker.connect();
    let workId = '';
    try {
      // A newer unit (epoch 6) loading into the table right now: it holds the table lock and has raised the fence, uncommitted.
      await blocker.query('BEGIN');
      await blocker.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`svc_sys_table:"${SCHEMA}"."people"`]);
      await blocker.query(`UPDATE ${SCHEMA}.svc_sys_table_fences SET epoch = 6 WHERE replication_id = $1 AND table_name = 'people'`, [REPLICATION_ID]);
      workId = await staged(changeBatch(200, 250, 5), 'D,1,\nI,4,Late Dee\n');
      await waitForLockWaiters(blocker, 1, 'the loader to wait for the table lock');
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }
    await harness.idle();
    expect(harness.resultsOf(workId)).toEqual([]);
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bob']);
  });

  it('loads and reports a batch of the current epoch as before', async () => {
    const workId = await staged(changeBatch(200, 300, 6), 'U,2,Bobby\n');
    await waitUntil(async () => harness.resultsOf(workId).length === 1, 20000, 'the current batch to be loaded');
    expect(await peopleRows()).toEqual(['1:Ann', '2:Bobby']);
  });
});

/** Files in the test bucket (the test S3 server's one account) and a warehouse in the given database of the test server; every log line kept. */
function replicationConfig(warehouseDatabase: string): ReplicationConfig {
  const server = new URL(TEST_POSTGRES_URL);
  return sampleReplicationConfig({
    replicationName: 'stale-batch-test',
    isLogErrorsOnly: false,
    warehouse: {
      accessKey: TEST_S3_ACCOUNT.accessKeyId,
      secretKey: TEST_S3_ACCOUNT.secretAccessKey,
      bucketName: BUCKET,
      bucketFolderName: 'f',
      url: `postgres://${server.host}`,
      databaseSchema: SCHEMA,
      databaseName: warehouseDatabase,
      username: decodeURIComponent(server.username) || 'postgres',
      password: decodeURIComponent(server.password),
    },
  });
}

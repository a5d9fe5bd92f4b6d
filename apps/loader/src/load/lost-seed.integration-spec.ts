import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { loadWorkerConfig } from '@svc/config';
import { PipelineSubjects, type BatchDescriptor, type ReplicationConfig } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { listenOnNats, natsMicroserviceOptions } from '@svc/messaging-nest';
import { seedBatchId } from '@svc/pipeline-runtime';
import { BatchFileWriter, createS3Client } from '@svc/storage';
import { startPipelineServiceHarness, type PipelineServiceHarness } from '@svc/system-testing';
import { SAMPLE_PEOPLE_TABLE, TEST_S3_ACCOUNT, TEST_POSTGRES_URL, createTempDatabase, sampleReplicationConfig, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { AppModule } from '../app.module';

const REPLICATION_ID = '5b0c7e1d-2a4f-4c6e-8b9a-1d2e3f4a5b6c';
const BUCKET = 'svc-lost-seed-test';
const SCHEMA = 'dwh';

const seedPart = (part: number, final: boolean): BatchDescriptor => ({
  batchId: seedBatchId(REPLICATION_ID, SAMPLE_PEOPLE_TABLE.table, 'seed-1', part),
  replicationId: REPLICATION_ID,
  epoch: 1,
  definition: SAMPLE_PEOPLE_TABLE,
  body: { kind: 'seed', seedId: 'seed-1', part, final, startVersion: '100' },
});

/**
 * The warehouse database recreated in the middle of a multi-part seed: the parts loaded before are gone, so
 * the next part's predecessor never shows up in the batch log again. The part stops waiting within seconds
 * and has the table reseeded, as the stager does with a lost staging table.
 */
describe('loader: a seed whose warehouse database is recreated between its parts', () => {
  let warehouseDb: TempDatabase;
  let config: ReplicationConfig;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.workFailed>;

  async function staged(batch: BatchDescriptor, csv: string): Promise<string> {
    const workId = randomUUID();
    const writer = new BatchFileWriter(createS3Client(config.warehouse, { endpoint: harness.s3.endpoint, allowBucketCreation: false }), BUCKET, `f/${workId}`);
    await writer.write(Buffer.from(csv));
    const files = await writer.finish();
    await harness.publisher.publish(PipelineSubjects.batchStaged, { workId, batch, files, rowCount: 1, addedColumns: [], extractedAt: new Date().toISOString() }, workId);
    return workId;
  }

  async function onServer(sql: string): Promise<void> {
    const client = new Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  async function partLoaded(batchId: string): Promise<boolean> {
    const client = new Client({ connectionString: warehouseDb.url });
    await client.connect();
    try {
      const result = await client.query(`SELECT 1 FROM ${SCHEMA}.svc_sys_loaded_batches WHERE batch_id = $1`, [batchId]).catch(() => ({ rowCount: 0 }));
      return (result.rowCount ?? 0) > 0;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    warehouseDb = await createTempDatabase('svc_loader_lost_seed');
    config = replicationConfig(warehouseDb.name);
    harness = await startPipelineServiceHarness({
      service: 'loader',
      testName: 'lost-seed-test',
      configs: new Map([[REPLICATION_ID, config]]),
      buckets: [BUCKET],
      resultSubject: PipelineSubjects.workFailed,
      startService: async (environment) => {
        const logger = new JsonLogger('loader', 'error', () => undefined);
        const app = await NestFactory.createMicroservice(AppModule.forConfig(loadWorkerConfig(environment), logger), {
          ...natsMicroserviceOptions(environment.NATS_URL, 'loader'),
          logger: false,
        });
        await listenOnNats(app);
        return app;
      },
    });
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await warehouseDb?.drop();
  });

  it('the next part reseeds the table within seconds instead of waiting for a predecessor that is gone', async () => {
    await staged(seedPart(0, false), '1,Ann\n');
    await waitUntil(() => partLoaded(seedPart(0, false).batchId), 20000, 'part 0 to be loaded');

    await onServer(`DROP DATABASE "${warehouseDb.name}" WITH (FORCE)`);
    await onServer(`CREATE DATABASE "${warehouseDb.name}"`);
    const startedAt = Date.now();
    const workId = await staged(seedPart(2, true), '3,Cy\n');

    await waitUntil(async () => harness.resultsOf(workId).length > 0, 25000, 'part 2 to report the table lost');
    expect(harness.resultsOf(workId)).toEqual([expect.objectContaining({ stage: 'load', retryable: true, reseed: true, scope: 'table' })]);
    expect(Date.now() - startedAt).toBeLessThan(20000);
    await harness.idle();
  }, 60000);
});

function replicationConfig(warehouseDatabase: string): ReplicationConfig {
  const server = new URL(TEST_POSTGRES_URL);
  return sampleReplicationConfig({
    replicationName: 'lost-seed-test',
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

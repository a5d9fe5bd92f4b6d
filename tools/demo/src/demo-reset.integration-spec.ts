import { Client, Pool } from 'pg';
import { DEFAULT_REGION } from '@svc/config';
import { ADMIN_KEY, TestStack } from '@svc/system-testing';
import { TEST_POSTGRES_URL } from '@svc/testing';
import { createSampleSource, demoReplicationName, resetDemo } from './demo-steps';
import type { DemoDatabases } from './demo-settings';
import { demoCreateRequest } from './replication-request';
import { ApiError, SignedApi } from './signed-api';

/**
 * Issue 20: `npm run demo` deleted every replication named after its source, a user's own included. Against the
 * registry and gateway as processes: the demo deletes what a demo made, and names what it leaves.
 */
describe('npm run demo, starting again', () => {
  const stack = new TestStack();
  let databases: DemoDatabases;
  let api: SignedApi;
  let said = '';
  const write = process.stdout.write.bind(process.stdout);

  beforeAll(async () => {
    await stack.start();
    databases = { source: stack.source.name, staging: stack.staging.name, warehouse: stack.warehouse.name };
    api = new SignedApi(stack.baseUrl, DEFAULT_REGION, ADMIN_KEY);
    const source = new Pool({ connectionString: stack.source.url, max: 1 });
    try {
      await createSampleSource(source);
    } finally {
      await source.end();
    }
  }, 120000);

  afterAll(async () => {
    process.stdout.write = write;
    await stack.stop();
  }, 60000);

  /** The demo's request, on the stack's S3 server, into `schema`. */
  function createRequest(schema: string): Record<string, unknown> {
    const request = demoCreateRequest(TEST_POSTGRES_URL, 'svc-demo-reset-it', databases);
    const warehouse = request['warehouse'] as Record<string, unknown>;
    return { ...request, warehouse: { ...warehouse, accessKey: stack.s3.accessKeyId, secretKey: stack.s3.secretAccessKey, bucketFolderName: `/${schema}`, databaseSchema: schema } };
  }

  it("deletes the replications an earlier demo made and leaves a user's replication of the demo source, naming it", async () => {
    // A user's replication of the demo source (as the README's examples make), named after the source by default.
    const users = await api.call('CreateWarehouseReplication', createRequest('mine'));
    // What an earlier demo run made: Create, then the demo's name.
    const earlier = await api.call('CreateWarehouseReplication', createRequest('analytics'));
    await api.call('AlterWarehouseReplication', { replicationId: earlier.replicationId, replicationName: demoReplicationName(databases, 'npm run demo') });

    const { replications } = await api.call('ListWarehouseReplications', {});
    const admin = new Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    process.stdout.write = ((chunk: string | Uint8Array) => {
      said += chunk.toString();
      return true;
    });
    try {
      await resetDemo(api, admin, replications, databases);
    } finally {
      process.stdout.write = write;
      await admin.end();
    }

    expect(said).toContain(`deleting replication ${earlier.replicationId} of an earlier demo run`);
    expect(said).toContain(`leaving replication ${users.replicationId} (${databases.source}) alone: the demo did not make it`);
    await expect(api.call('DescribeWarehouseReplication', { replicationId: earlier.replicationId })).rejects.toThrow(ApiError);
    const left = await api.call('DescribeWarehouseReplication', { replicationId: users.replicationId });
    expect(left.replicationName).toBe(databases.source);
  }, 120000);
});

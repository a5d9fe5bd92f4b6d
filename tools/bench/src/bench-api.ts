import type { CreateReplicationResponse, ReplicationDescription } from '@svc/contracts';
import { ADMIN_KEY, callSigned, type TestStack } from '@svc/system-testing';
import { BENCH_PARALLEL_TABLES, BENCH_WAREHOUSE_SCHEMA } from './bench-settings';

/** CreateWarehouseReplication (JSON wire form): every source table, SCD Type1, into the bench schema; the stack's source unless another is named. */
export function benchCreateRequest(stack: TestStack, sourceUrl = stack.source.url): Record<string, unknown> {
  return {
    parallelTablesLimit: BENCH_PARALLEL_TABLES,
    rebuildIndexes: false,
    source: { connectionString: sourceUrl, encryptDataInTransit: false, changeTrackingRetentionPeriod: '2 Days' },
    staging: { connectionString: stack.staging.url, encryptDataInTransit: false, replicateCompatibilityLevel: false },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: stack.s3.accessKeyId,
      secretKey: stack.s3.secretAccessKey,
      bucketName: 'svc-bench',
      bucketFolderName: '/bench',
      regionEndpoint: 'us-east-1',
      retentionDays: 1,
      url: `postgres://${new URL(stack.warehouse.url).host}`,
      databaseSchema: BENCH_WAREHOUSE_SCHEMA,
      databaseName: stack.warehouse.name,
      username: 'postgres',
      password: 'unused-with-trust-auth',
      scdType: 'Type1',
    },
    addUpdateTimestamp: false,
    tablesToInclude: 'All',
  };
}

/** A signed JSON call that must answer 200; its body parsed (null for an empty 200). */
export async function call<T>(stack: TestStack, operation: string, body: Record<string, unknown>): Promise<T> {
  const response = await callSigned(stack.baseUrl, operation, 'json', JSON.stringify(body), ADMIN_KEY);
  if (response.status !== 200) throw new Error(`${operation} answered ${response.status}: ${response.body.slice(0, 1000)}`);
  return (response.body.trim() === '' ? null : JSON.parse(response.body)) as T;
}

export async function createReplication(stack: TestStack, sourceUrl?: string): Promise<string> {
  return (await call<CreateReplicationResponse>(stack, 'CreateWarehouseReplication', benchCreateRequest(stack, sourceUrl))).replicationId;
}

export function describeReplication(stack: TestStack, replicationId: string): Promise<ReplicationDescription> {
  return call<ReplicationDescription>(stack, 'DescribeWarehouseReplication', { replicationId });
}

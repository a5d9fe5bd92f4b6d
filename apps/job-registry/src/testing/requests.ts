import type { CreateReplicationRequest, OperationName, OperationRequest } from '@svc/contracts';
import { parseOperationRequest } from '@svc/api-model';

/** Parses a request tree the way the registry does, failing the test on any validation message. */
export function parsedRequest<Op extends OperationName>(operation: Op, tree: unknown): OperationRequest<Op> {
  const parsed = parseOperationRequest(operation, tree);
  if (!parsed.ok) throw new Error(`test request for ${operation} is invalid:\n${parsed.messages.join('\n')}`);
  return parsed.value;
}

export interface CreateRequestParts {
  sourceUrl: string;
  stagingUrl: string;
  warehouseUrl: string;
  warehouseDatabase: string;
  warehouseUser: string;
  bucketName: string;
  accessKey: string;
  secretKey: string;
  warehousePassword: string;
}

export const SAMPLE_PARTS: CreateRequestParts = {
  sourceUrl: 'postgres://app:source-secret-1@db.internal:5432/sales',
  stagingUrl: 'postgres://sa:staging-secret-2@staging.internal:5432/sales_staging',
  warehouseUrl: 'examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439',
  warehouseDatabase: 'dev',
  warehouseUser: 'loader',
  bucketName: 'svc-replication-bucket',
  accessKey: 'AKIAIOSFODNN7EXAMPLE',
  secretKey: 'warehouse-secret-key-3',
  warehousePassword: 'warehouse-password-4',
};

/** A JSON-style CreateWarehouseReplication tree as the gateway would forward it. */
export function createRequestTree(parts: CreateRequestParts = SAMPLE_PARTS): Record<string, unknown> {
  return {
    parallelTablesLimit: '10',
    rebuildIndexes: 'false',
    source: { connectionString: parts.sourceUrl, encryptDataInTransit: 'false', changeTrackingRetentionPeriod: '2 DAYS' },
    staging: { connectionString: parts.stagingUrl, encryptDataInTransit: 'false', replicateCompatibilityLevel: 'true' },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: parts.accessKey,
      secretKey: parts.secretKey,
      bucketName: parts.bucketName,
      bucketFolderName: '/replication/data',
      regionEndpoint: 'us-east-1',
      retentionDays: 7,
      url: parts.warehouseUrl,
      databaseSchema: 'public',
      databaseName: parts.warehouseDatabase,
      username: parts.warehouseUser,
      password: parts.warehousePassword,
      scdType: 'Type1',
    },
    addUpdateTimestamp: 'true',
    tablesToInclude: 'All',
  };
}

export function sampleCreateRequest(parts: CreateRequestParts = SAMPLE_PARTS): CreateReplicationRequest {
  return parsedRequest('CreateWarehouseReplication', createRequestTree(parts));
}

import { DEMO_DATABASES, DEMO_WAREHOUSE_SCHEMA, databaseUrl, type DemoDatabases } from './demo-settings';
import { SAMPLE_TABLES } from './sample-source';

/** The key pair a demo replication signs its bucket requests with: the account of the S3 server `npm start` embeds. */
export interface BucketKey {
  accessKey: string;
  secretKey: string;
}
export const DEMO_BUCKET = 'svc-demo';

/**
 * Source and staging connection strings of one demo run. They carry the run's application_name: it labels
 * the service's sessions, and it keeps the workers from reusing connections (and what they remember about
 * a database, such as its control tables) opened for an earlier run's databases of the same name.
 */
export function runConnectionString(postgresUrl: string, database: string, runLabel: string): string {
  const url = new URL(databaseUrl(postgresUrl, database));
  url.searchParams.set('application_name', runLabel);
  return url.toString();
}

/**
 * The CreateWarehouseReplication body (JSON wire form) for the demo databases on the server of
 * `postgresUrl`: SCD Type1 into `analytics`, and the table without a key re-seeded all day every minute.
 */
export function demoCreateRequest(postgresUrl: string, runLabel: string, bucketKey: BucketKey, databases: DemoDatabases = DEMO_DATABASES): Record<string, unknown> {
  const server = new URL(postgresUrl);
  const noKeyTables = SAMPLE_TABLES.filter((table) => !table.keyed).map((table) => table.name);
  return {
    parallelTablesLimit: 4,
    rebuildIndexes: false,
    source: {
      connectionString: runConnectionString(postgresUrl, databases.source, runLabel),
      encryptDataInTransit: false,
      changeTrackingRetentionPeriod: '2 Days',
      resetChangeTracking: false,
    },
    staging: {
      connectionString: runConnectionString(postgresUrl, databases.staging, runLabel),
      encryptDataInTransit: false,
      replicateCompatibilityLevel: false,
    },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: bucketKey.accessKey,
      secretKey: bucketKey.secretKey,
      bucketName: DEMO_BUCKET,
      // One folder per demo, named after its source.
      bucketFolderName: `/${databases.source.replace(/_/g, '-')}`,
      regionEndpoint: 'us-east-1',
      retentionDays: 1,
      url: `postgres://${server.host}`,
      databaseSchema: DEMO_WAREHOUSE_SCHEMA,
      databaseName: databases.warehouse,
      username: decodeURIComponent(server.username) || 'postgres',
      // The field is required; a server with trust authentication ignores it.
      password: decodeURIComponent(server.password) || 'unused-with-trust-auth',
      scdType: 'Type1',
    },
    addUpdateTimestamp: true,
    tablesToInclude: 'All',
    reseedingSchedule: {
      noPkTablesToInclude: noKeyTables.join(','),
      pkTablesToInclude: '',
      fromTime: '12:00:00 AM',
      toTime: '11:59:59 PM',
      repeatIntervalInMinutes: 1,
    },
  };
}

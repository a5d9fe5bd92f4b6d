import { REPLICATION_DEFAULTS, type ReplicationConfig } from '@svc/contracts';

/** Changes to the sample: top-level fields replace, and source, staging and warehouse fields merge into the sample's. */
export type ReplicationConfigOverrides = Partial<Omit<ReplicationConfig, 'source' | 'staging' | 'warehouse'>> & {
  source?: Partial<ReplicationConfig['source']>;
  staging?: Partial<ReplicationConfig['staging']>;
  warehouse?: Partial<ReplicationConfig['warehouse']>;
};

const { warehouseTimeoutInMins, ...alterOnlyDefaults } = REPLICATION_DEFAULTS;

/**
 * A complete, valid replication configuration for tests: an AccessKey warehouse, all tables, the stored
 * defaults of the Alter-only settings. Every secret is present and tells itself apart (`source-pw`,
 * `staging-pw`, `wh-secret-key`, `wh-pw`), so tests can look for it where it must not be.
 */
export function sampleReplicationConfig(overrides: ReplicationConfigOverrides = {}): ReplicationConfig {
  const { source, staging, warehouse, ...topLevel } = overrides;
  return {
    replicationName: 'app',
    parallelTablesLimit: 10,
    rebuildIndexes: false,
    addUpdateTimestamp: false,
    tablesToInclude: 'All',
    ...alterOnlyDefaults,
    ...topLevel,
    source: {
      connectionString: 'postgres://u:source-pw@127.0.0.1:5432/app',
      encryptDataInTransit: false,
      changeTrackingRetentionPeriod: '2 Days',
      ...source,
    },
    staging: {
      connectionString: 'postgres://u:staging-pw@127.0.0.1:5432/stg',
      encryptDataInTransit: false,
      replicateCompatibilityLevel: false,
      ...staging,
    },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: 'AKIAEXAMPLE',
      secretKey: 'wh-secret-key',
      bucketName: 'bucket',
      bucketFolderName: '/f',
      regionEndpoint: 'us-east-1',
      retentionDays: 7,
      url: 'postgres://127.0.0.1:5432',
      databaseSchema: 'public',
      databaseName: 'dw',
      username: 'loader',
      password: 'wh-pw',
      scdType: 'Type1',
      timeoutInMins: warehouseTimeoutInMins,
      ...warehouse,
    },
  };
}

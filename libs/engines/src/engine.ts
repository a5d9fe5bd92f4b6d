import type { ReplicationConfig } from '@svc/contracts';
import type { SourceConnector, StagingConnector, WarehouseConnector } from './capabilities';
import type { DriverErrorMapper } from './errors';

/**
 * What one engine brings to the pipeline, as its engine folder exports it and the engine table lists it:
 * the connectors it can open (a role it cannot play yet is left out) and how it reads its driver's errors.
 */
export interface PipelineEngine {
  /** The engine's name as users know it, for messages (`SQL Server`, `PostgreSQL`). */
  displayName: string;
  errorKind: DriverErrorMapper;
  /** A source connector for Source.ConnectionString (EncryptDataInTransit given). */
  openSource?: (connectionString: string, encrypt: boolean) => SourceConnector;
  /** A staging connector for Staging.ConnectionString. */
  openStaging?: (connectionString: string, encrypt: boolean) => StagingConnector;
  /** A warehouse connector for the replication's Warehouse group (and RebuildIndexes). */
  openWarehouse?: (config: ReplicationConfig) => WarehouseConnector;
}

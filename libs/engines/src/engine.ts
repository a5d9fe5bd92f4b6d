import type { BatchDescriptor, ReplicationConfig } from '@svc/contracts';
import type { SourceConnector, StagingConnector, WarehouseConnector } from './capabilities';
import type { DialPolicy } from './connection/dial-guard';
import type { PoolSizing } from './connection/pool-sizing';
import type { DriverErrorMapper } from './errors';
import type { RebuildThreshold } from './rebuild-threshold';

/**
 * What one engine brings to the pipeline, as its engine folder exports it and the engine table lists it:
 * the connectors it can open (a role it cannot play yet is left out) and how it reads its driver's errors.
 */
/** What a warehouse is told when it opens, from the engine list: what no single engine knows. */
export interface WarehouseContext {
  /** Schemas whose tables keep their bare name in the warehouse: every listed engine's default schema (DESIGN §6). */
  bareNameSchemas: ReadonlySet<string>;
  /** The worker's sizing of the warehouse pool; absent: the engine's defaults. */
  pool?: PoolSizing;
  /** What the warehouse's connections may reach: the worker's ALLOW_LOOPBACK_TARGETS (dial-guard.ts); DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  /** When a change batch rebuilds its table, on an engine that can; DEFAULT_REBUILD_THRESHOLD when absent. */
  rebuild?: RebuildThreshold;
}

export interface PipelineEngine {
  /** The engine's name as users know it, for messages (`SQL Server`, `PostgreSQL`). */
  displayName: string;
  errorKind: DriverErrorMapper;
  /** A source connector for Source.ConnectionString (EncryptDataInTransit given), its connections held to `dial`. */
  openSource?: (connectionString: string, encrypt: boolean, pool?: PoolSizing, dial?: DialPolicy) => SourceConnector;
  /** A staging connector for Staging.ConnectionString, its connections held to `dial`. */
  openStaging?: (connectionString: string, encrypt: boolean, pool?: PoolSizing, dial?: DialPolicy, rebuild?: RebuildThreshold) => StagingConnector;
  /** A warehouse connector for the replication's Warehouse group (and RebuildIndexes). */
  openWarehouse?: (config: ReplicationConfig, context: WarehouseContext) => WarehouseConnector;
  /**
   * How the batch files for this warehouse hold the rows, when not as the pipeline carries them (PostgreSQL's
   * CSV): the stager passes every chunk through the rewriter on its way to the bucket. Absent: written as carried.
   */
  stagedFileRows?: (batch: BatchDescriptor) => StagedRowsRewriter;
}

/**
 * Rewrites a batch's CSV as it streams, chunk by chunk (boundaries anywhere); throws, naming table, column and
 * key, for a value the warehouse cannot hold. Memory stays bounded by the largest row.
 */
export interface StagedRowsRewriter {
  /** The rewritten bytes for the rows completed so far. */
  push(chunk: Buffer): Buffer[];
  /** The rest, once every chunk was pushed; throws when the input ends inside a row. */
  end(): Buffer[];
}

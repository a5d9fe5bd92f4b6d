import { createHash } from 'node:crypto';
import { DEFAULT_SCHEMAS, sourceEngineOf, warehouseEngineOf } from '@svc/engine-list';
import type { BatchDescriptor, ReplicationConfig } from '@svc/contracts';
import { DEFAULT_DIAL_POLICY, DEFAULT_REBUILD_THRESHOLD, type DialPolicy, type RebuildThreshold, type PoolSizing, type SourceConnector, type StagedRowsRewriter, type StagingConnector, type WarehouseConnector } from '@svc/engines';
import { createS3Client, type S3Settings } from '@svc/storage';
import type { S3Client } from '@aws-sdk/client-s3';
import { ENGINE_TABLE, type EngineTable } from './engine-table';

/** Thrown for an engine this build cannot drive yet; terminal for the work that needs it. */
export class UnsupportedEngineError extends Error {
  constructor(role: string, engine: string) {
    super(`${role}: the ${engine} engine is not supported by this build yet`);
    this.name = 'UnsupportedEngineError';
  }
}

interface Closable {
  close(): Promise<void>;
}

/** Keeps one connector per distinct connection (a pool inside each), shared by every batch that needs it. */
class ConnectorCache<T extends Closable> {
  private readonly connectors = new Map<string, T>();

  get(identity: string, open: () => T): T {
    const key = createHash('sha256').update(identity).digest('hex');
    let connector = this.connectors.get(key);
    if (!connector) {
      connector = open();
      this.connectors.set(key, connector);
    }
    return connector;
  }

  async closeAll(): Promise<void> {
    const all = [...this.connectors.values()];
    this.connectors.clear();
    await Promise.allSettled(all.map((connector) => connector.close()));
  }
}

/** How the worker sizes each role's pools; a role left out keeps its engine's defaults. */
export type PoolSizings = Partial<Readonly<Record<'source' | 'staging' | 'warehouse', PoolSizing>>>;

/**
 * Opens (and reuses) the engine connectors a replication's configuration names, from the engine table
 * (the build's engines by default; tests hand in fakes, see @svc/pipeline-runtime/testing).
 */
export class EngineRegistry {
  private readonly sources = new ConnectorCache<SourceConnector>();
  private readonly stagings = new ConnectorCache<StagingConnector>();
  private readonly warehouses = new ConnectorCache<WarehouseConnector>();
  private readonly buckets = new ConnectorCache<{ client: S3Client; close(): Promise<void> }>();

  constructor(
    private readonly engines: EngineTable = ENGINE_TABLE,
    private readonly pools: PoolSizings = {},
    /** What every connection of every connector may reach: the worker's ALLOW_LOOPBACK_TARGETS (dial-guard.ts). */
    private readonly dial: DialPolicy = DEFAULT_DIAL_POLICY,
    /** When a change batch rebuilds its table (the worker's REBUILD_PERCENT and REBUILD_MIN_ROWS). */
    private readonly rebuild: RebuildThreshold = DEFAULT_REBUILD_THRESHOLD,
  ) {}

  source(config: ReplicationConfig): SourceConnector {
    const { connectionString, encryptDataInTransit } = config.source;
    const engine = sourceEngineOf(connectionString);
    const open = engine ? this.engines[engine].openSource : undefined;
    if (!engine || !open) throw new UnsupportedEngineError('source', engine ?? 'unknown');
    return this.sources.get(`${encryptDataInTransit}|${connectionString}`, () => open(connectionString, encryptDataInTransit, this.pools.source, this.dial));
  }

  staging(config: ReplicationConfig): StagingConnector {
    const { connectionString, encryptDataInTransit } = config.staging;
    const engine = sourceEngineOf(connectionString);
    const open = engine ? this.engines[engine].openStaging : undefined;
    if (!engine || !open) throw new UnsupportedEngineError('staging', engine ?? 'unknown');
    return this.stagings.get(`${encryptDataInTransit}|${connectionString}`, () => open(connectionString, encryptDataInTransit, this.pools.staging, this.dial, this.rebuild));
  }

  warehouse(config: ReplicationConfig): WarehouseConnector {
    const { warehouse } = config;
    const engine = warehouseEngineOf(warehouse.url);
    const open = engine ? this.engines[engine].openWarehouse : undefined;
    if (!engine || !open) throw new UnsupportedEngineError('warehouse', engine ?? 'unknown');
    const identity = [warehouse.url, warehouse.databaseName, warehouse.username, warehouse.password, warehouse.timeoutInMins, config.rebuildIndexes].join('|');
    return this.warehouses.get(identity, () => open(config, { bareNameSchemas: DEFAULT_SCHEMAS, ...(this.pools.warehouse && { pool: this.pools.warehouse }), dial: this.dial, rebuild: this.rebuild }));
  }

  /** How the replication's warehouse wants the batch files' rows rewritten; null when written as carried. */
  stagedFileRows(config: ReplicationConfig, batch: BatchDescriptor): StagedRowsRewriter | null {
    const engine = warehouseEngineOf(config.warehouse.url);
    const rewriter = engine ? this.engines[engine].stagedFileRows : undefined;
    return rewriter ? rewriter(batch) : null;
  }

  /**
   * The S3 client for the replication's bucket, reused across batches: its keys (AccessKey), or the customer's role
   * assumed with its ExternalId (IAMRole; the session is renewed inside the client). A changed role is a new client.
   */
  bucket(config: ReplicationConfig, settings: S3Settings): S3Client {
    const { warehouse } = config;
    const identity = JSON.stringify([
      warehouse.accessType,
      warehouse.accessKey,
      warehouse.secretKey,
      warehouse.accountId,
      warehouse.roleName,
      warehouse.externalId,
      warehouse.regionEndpoint,
      settings.endpoint,
    ]);
    return this.buckets.get(identity, () => {
      const client = createS3Client(warehouse, settings);
      return { client, close: async () => client.destroy() };
    }).client;
  }

  async closeAll(): Promise<void> {
    await Promise.all([this.sources.closeAll(), this.stagings.closeAll(), this.warehouses.closeAll(), this.buckets.closeAll()]);
  }
}

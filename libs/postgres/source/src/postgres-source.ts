import type { RetentionPeriod, TableDefinition, TableRef } from '@svc/contracts';
import { poolGateOptions, type DialPolicy, type PoolSizing } from '@svc/engines';
import type { ChangeProbeOptions, ChangeRead, ChangedTables, ReadOptions, SeedChunkPlan, SnapshotRead, SourceChecksums, SourceConnector, TableWatermark } from '@svc/engines';
import { SOURCE_SESSION_OPTIONS, createPool, postgresClientConfig } from '@svc/postgres/common';
import type { Pool } from 'pg';
import { readTableDefinitions } from './catalog';
import { readChanges } from './change-reader';
import { changedTables } from './changed-tables';
import { postgresChecksums } from './checksums';
import { purgeChanges } from './purge';
import { trackedMinValidVersion } from './registry';
import { planSeedChunks } from './seed-chunks';
import { readSnapshot } from './snapshot-reader';
import { disableTracking, enableTracking } from './tracking';
import { stopRelay, type RelayOptions } from './log/log-relay';

export interface PostgresSourceOptions {
  /** Source.EncryptDataInTransit */
  encrypt: boolean;
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** What every connect of the pool may reach (dial-guard.ts): the worker's; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  /** Connections held at most (one per open snapshot or change read). Default 4. */
  maxConnections?: number;
  /** The worker's sizing of the pool (overrides maxConnections). */
  pool?: Partial<PoolSizing>;
  /** How long enableTracking (disableTracking) waits for the writers (readers and writers) in flight on the table. Default 10 s. */
  lockTimeoutMs?: number;
  /**
   * Log capture: a change read or probe does not ask for another relay round when this process's last one ended less
   * than this ago (its horizon stands; the next read goes further), so that reads back to back during a catch-up do not
   * each wait for a round of their own. Default 250 ms.
   */
  relayIntervalMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 4;
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const DEFAULT_RELAY_INTERVAL_MS = 250;

/**
 * A PostgreSQL source (DESIGN §5.2): trigger-based change capture into schema svc_ct, snapshots and net
 * changes streamed with COPY. The connection string is only handed to the driver, never kept in a message.
 */
export function createPostgresSource(connectionString: string, options: PostgresSourceOptions): SourceConnector {
  const config = postgresClientConfig(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.dial && { dial: options.dial }),
  });
  const { max, gate } = poolGateOptions('Source', options, DEFAULT_MAX_CONNECTIONS);
  const pool = createPool({ ...config, options: SOURCE_SESSION_OPTIONS, max }, gate);
  return new PostgresSource(pool, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, { minIntervalMs: options.relayIntervalMs ?? DEFAULT_RELAY_INTERVAL_MS });
}

class PostgresSource implements SourceConnector {
  constructor(
    private readonly pool: Pool,
    private readonly lockTimeoutMs: number,
    private readonly relay: RelayOptions,
  ) {}

  discoverTables(): Promise<TableDefinition[]> {
    return readTableDefinitions(this.pool);
  }

  async describeTable(table: TableRef): Promise<TableDefinition | null> {
    const [definition] = await readTableDefinitions(this.pool, table);
    return definition ?? null;
  }

  enableTracking(definition: TableDefinition): Promise<void> {
    return enableTracking(this.pool, definition, this.lockTimeoutMs);
  }

  disableTracking(table: TableRef): Promise<void> {
    return disableTracking(this.pool, table, this.lockTimeoutMs);
  }

  readSnapshot(definition: TableDefinition, options?: ReadOptions): Promise<SnapshotRead> {
    return readSnapshot(this.pool, definition, options);
  }

  planSeedChunks(definition: TableDefinition, chunkBytes: number): Promise<SeedChunkPlan> {
    return planSeedChunks(this.pool, definition, chunkBytes);
  }

  readChanges(definition: TableDefinition, fromVersion: string, limit: number, options?: ReadOptions): Promise<ChangeRead> {
    return readChanges(this.pool, definition, fromVersion, limit, options, this.relay);
  }

  /** Changes below it are gone (purged, or from before tracking was enabled); null when the table is not tracked. */
  minValidVersion(table: TableRef): Promise<string | null> {
    return trackedMinValidVersion(this.pool, table);
  }

  changedTables(watermarks: readonly TableWatermark[], options: ChangeProbeOptions): Promise<ChangedTables> {
    return changedTables(this.pool, watermarks, options, this.relay);
  }

  purgeChanges(table: TableRef, retention: RetentionPeriod): Promise<{ purgedRows: number }> {
    return purgeChanges(this.pool, table, retention);
  }

  checksums(definition: TableDefinition): SourceChecksums {
    return postgresChecksums(this.pool, definition);
  }

  async close(): Promise<void> {
    await stopRelay(this.pool);
    await this.pool.end();
  }
}

import type { Pool } from 'pg';
import type { ServiceConfiguration } from '@svc/contracts';

export interface ServiceConfigurationStore {
  get(): Promise<ServiceConfiguration>;
  /** Applies the given fields and returns the whole configuration. */
  update(patch: Partial<ServiceConfiguration>): Promise<ServiceConfiguration>;
}

interface ServiceConfigurationRow {
  service_stopped: boolean;
  serialize_replications: boolean;
  parallel_database_replications_limit: number;
}

const COLUMNS = 'service_stopped, serialize_replications, parallel_database_replications_limit';

/**
 * The service-wide settings (one row, created by the first migration). parallelDatabaseReplicationsLimit 0
 * means no limit; serializeReplications true means one replication at a time whatever the limit.
 */
export class ServiceConfigurationRepository implements ServiceConfigurationStore {
  constructor(private readonly pool: Pool) {}

  async get(): Promise<ServiceConfiguration> {
    const result = await this.pool.query<ServiceConfigurationRow>(`SELECT ${COLUMNS} FROM service_configuration`);
    return toConfiguration(singleRow(result.rows));
  }

  async update(patch: Partial<ServiceConfiguration>): Promise<ServiceConfiguration> {
    // COALESCE keeps the stored value of every field the patch leaves out.
    const result = await this.pool.query<ServiceConfigurationRow>(
      `UPDATE service_configuration
          SET service_stopped = COALESCE($1, service_stopped),
              serialize_replications = COALESCE($2, serialize_replications),
              parallel_database_replications_limit = COALESCE($3, parallel_database_replications_limit),
              updated_at = now()
        RETURNING ${COLUMNS}`,
      [patch.serviceStopped ?? null, patch.serializeReplications ?? null, patch.parallelDatabaseReplicationsLimit ?? null],
    );
    return toConfiguration(singleRow(result.rows));
  }
}

function singleRow(rows: ServiceConfigurationRow[]): ServiceConfigurationRow {
  const row = rows[0];
  if (row === undefined) throw new Error('service_configuration has no row: migrations were not applied');
  return row;
}

function toConfiguration(row: ServiceConfigurationRow): ServiceConfiguration {
  return {
    serviceStopped: row.service_stopped,
    serializeReplications: row.serialize_replications,
    parallelDatabaseReplicationsLimit: row.parallel_database_replications_limit,
  };
}

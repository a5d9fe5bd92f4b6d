import { postgresErrorKind } from '@svc/postgres/common';
import type { PipelineEngine, WarehouseContext } from '@svc/engines';
import { createPostgresSource } from '@svc/postgres/source';
import { createPostgresStaging } from '@svc/postgres/staging';
import { createPostgresWarehouse, type PostgresWarehouseOptions } from '@svc/postgres/warehouse';

/** Warehouse.TimeoutInMins bounds every warehouse statement; RebuildIndexes reindexes after a seed. */
export function postgresWarehouseOptions(config: { warehouse: { timeoutInMins: number }; rebuildIndexes: boolean }, context: WarehouseContext): PostgresWarehouseOptions {
  return {
    statementTimeoutMs: config.warehouse.timeoutInMins * 60_000,
    rebuildIndexes: config.rebuildIndexes,
    bareNameSchemas: context.bareNameSchemas,
    ...(context.pool && { pool: context.pool }),
    ...(context.dial && { dial: context.dial }),
    ...(context.rebuild && { rebuild: context.rebuild }),
  };
}

/** PostgreSQL as source, staging and warehouse. */
export const postgresEngine: PipelineEngine = {
  displayName: 'PostgreSQL',
  errorKind: postgresErrorKind,
  openSource: (connectionString, encrypt, pool, dial) => createPostgresSource(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }) }),
  openStaging: (connectionString, encrypt, pool, dial, rebuild) =>
    createPostgresStaging(connectionString, { encrypt, ...(pool && { pool }), ...(dial && { dial }), ...(rebuild && { rebuild }) }),
  openWarehouse: (config, context) => {
    const { url, databaseName, username, password } = config.warehouse;
    return createPostgresWarehouse({ url, databaseName, username, password }, postgresWarehouseOptions(config, context));
  },
};

import { randomUUID } from 'node:crypto';
import { CHANGE_TRACKING_MODEL_SCHEMA, installChangeTrackingModel, postgresTypeOf, storedText } from '@svc/sqlserver/on-postgres';
import { Client } from 'pg';
import type { SourceSession } from './engine-fixture';
import { openPostgresSource, type SourceDialect } from './postgres-fixture';
import { sqlServerSchema, sqlServerType } from './sqlserver-fixture';
import { Json, type ColumnSpec, type TableSpec, type Value } from './table-spec';

/**
 * The SQL Server source of the generic suite on the PostgreSQL model of SQL Server (libs/sqlserver/on-postgres): the
 * tables have the SQL Server fixture's types (sqlserver-fixture.ts sqlServerType) as the model holds them
 * (postgresTypeOf), in the SQL Server fixture's schemas (public is dbo), and Change Tracking is the model's. The suite
 * writes them through PostgreSQL, which the model's triggers track as SQL Server's Change Tracking would; the services
 * read and stage them through their own T-SQL, translated (SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES).
 */
function modelType(_spec: TableSpec, column: ColumnSpec): string {
  const sqlServer = sqlServerType(column.type);
  const mapped = postgresTypeOf(sqlServer);
  if (mapped === null) throw new Error(`the SQL Server model has no type for ${sqlServer}`);
  return mapped;
}

/** Values as the SQL Server fixture writes them: JSON documents and text arrays as JSON text, booleans as bit. */
function modelParameter(value: Value): unknown {
  if (value instanceof Json) return JSON.stringify(value.document);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) return JSON.stringify(value);
  // An unpaired surrogate half as the model stores it (libs/sqlserver/on-postgres unpaired-halves.ts).
  if (typeof value === 'string') return storedText(value);
  return value;
}

export const SQLSERVER_MODEL_DIALECT: SourceDialect = { sqlType: modelType, parameter: modelParameter, schemaOf: sqlServerSchema, enumTypes: false };

/** Installs the model (Change Tracking on, snapshot isolation on, an incarnation of its own) unless the database has it. */
async function withModel(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const present = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [CHANGE_TRACKING_MODEL_SCHEMA]);
    if (present.rows.length === 0) await installChangeTrackingModel(client, `recovery fork ${randomUUID().toUpperCase()}, database ${randomUUID().toUpperCase()}`);
  } finally {
    await client.end();
  }
}

export async function openSqlServerModelSource(url: string): Promise<SourceSession> {
  await withModel(url);
  return openPostgresSource(url, {
    engine: 'SQL Server (modelled on PostgreSQL)',
    dialect: SQLSERVER_MODEL_DIALECT,
    readsStoredTypes: true,
    // The retention's cleanup of every change up to the next commit's version, as it would be once the changes after the
    // table's watermark had aged out: the minimum valid version passes the watermark (as the PostgreSQL fixture's does).
    expireChanges: async (client, spec) => {
      await client.query(
        `SELECT ${CHANGE_TRACKING_MODEL_SCHEMA}.cleanup(format('%I.%I', $1::text, $2::text)::regclass, ${CHANGE_TRACKING_MODEL_SCHEMA}.change_tracking_current_version() + 1)`,
        [sqlServerSchema(spec.schema), spec.name],
      );
    },
  });
}

/** A SQL Server connection string naming the database; the model takes only its name (server, login and password are not used). */
export const modelConnectionString = (database: string) => `Server=127.0.0.1,1433;Database=${database};User Id=replicator;Password=unused-by-the-model;Encrypt=false`;

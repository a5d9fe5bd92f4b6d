import type { TableRef } from '@svc/contracts';
import type { Pool, PoolClient } from 'pg';
import { MIN_VALID_VERSION_SQL, REGISTRY_EXISTS_SQL } from './tracking-sql';

type Queryable = Pool | PoolClient;

/** The registry of tracked tables exists once anything has been tracked in the database. */
export async function registryExists(db: Queryable): Promise<boolean> {
  const result = await db.query<{ exists: boolean }>(REGISTRY_EXISTS_SQL);
  return result.rows[0]?.exists === true;
}

/** The table's minimum valid version; null when it is not tracked. */
export async function trackedMinValidVersion(db: Queryable, table: TableRef): Promise<string | null> {
  if (!(await registryExists(db))) return null;
  const result = await db.query<{ version: string }>(MIN_VALID_VERSION_SQL, [table.schema, table.name]);
  return result.rows[0]?.version ?? null;
}

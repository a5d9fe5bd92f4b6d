import type { TableRef } from '@svc/contracts';
import type { Pool, PoolClient } from 'pg';
import { MIN_VALID_VERSION_SQL, REGISTRY_EXISTS_SQL, TRACKED_TABLE_SQL } from './tracking-sql';

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

/** How a tracked table's changes are captured, as the registry has it. */
export interface TrackedTable {
  minValidVersion: string;
  capture: 'trigger' | 'log';
  /** The relation the log names it by (log capture), as text. */
  relid: string | null;
}

/** The table's registry row; null when it is not tracked. A registry made before log capture has triggers only. */
export async function trackedTable(db: Queryable, table: TableRef): Promise<TrackedTable | null> {
  if (!(await registryExists(db))) return null;
  const row = (await db.query<{ row: { min_valid_version: string; capture?: string; relid?: number | null } }>(TRACKED_TABLE_SQL, [table.schema, table.name])).rows[0]?.row;
  if (row === undefined) return null;
  return { minValidVersion: row.min_valid_version, capture: row.capture === 'log' ? 'log' : 'trigger', relid: row.relid == null ? null : String(row.relid) };
}

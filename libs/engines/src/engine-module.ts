import type { WarehouseConfig } from '@svc/contracts';
import type { DatabaseAccess } from './connection/database-access';
import type { PipelineEngine } from './engine';
import type { EngineTypes } from './type-table';

/** The secrets a replication stores in its Warehouse group. */
export const WAREHOUSE_SECRETS = ['password', 'secretKey'] as const satisfies readonly (keyof WarehouseConfig)[];
export type WarehouseSecret = (typeof WAREHOUSE_SECRETS)[number];

/** The parts of the pipeline an engine can play: read from, stage into, load into. */
export type EngineRole = 'source' | 'staging' | 'warehouse';

/**
 * Everything the service knows of one engine, as its `libs/<engine>/engine` folder exports it and the engine list
 * (`@svc/engine-list`) names it once: the engine unions, the access Create and Alter use, the pipeline's engine
 * table, messages and the suites' pairs are all read from these modules.
 */
export interface EngineModule<Name extends string = string, Role extends EngineRole = EngineRole> {
  /** The key every table and message uses (`postgres`); also the folder's name, its libraries imported as `@svc/<name>/<library>`. */
  name: Name;
  /** The engine's name as users know it, for messages (`SQL Server`, `PostgreSQL`). */
  displayName: string;
  roles: readonly Role[];
  /**
   * The forms of its Source or Staging connection string, for the message that refuses a string of no engine
   * (`postgres://…`); empty for an engine that plays neither role.
   */
  connectionStringForms: readonly string[];
  /** How Create and Alter reach it through a Source or Staging connection string; null when it plays neither role. */
  databaseAccess: DatabaseAccess | null;
  /** Whether a Warehouse.Url names this engine; absent when it is no warehouse. */
  recognizesWarehouseUrl?: (url: string) => boolean;
  /**
   * The stored Warehouse secrets its warehouse connector sends to the server Warehouse.Url names, as whoever logs in
   * as Username to DatabaseName there (Redshift's COPY carries the S3 key pair in its text). Alter keeps a stored
   * secret only while every place it goes to stays the same, so a secret sent and not listed here could be redirected
   * to a server of the caller's; the engine list's spec proves each list with a server that records what reaches it.
   * Absent when it is no warehouse.
   */
  warehouseServerReceives?: readonly WarehouseSecret[];
  /** What it brings to the pipeline: the connectors of its roles and its driver-error mapper. */
  pipeline: PipelineEngine;
  /** The schema a table lands in when its name has none (`public`, `dbo`): its tables keep their bare name in the warehouse. */
  defaultSchema: string;
  /** What it does to each type on the way (docs/TYPES.md is generated from it): `reads` for a source, `declares` for a warehouse. */
  types: EngineTypes;
}

/** Declares an engine module, keeping its name and roles as literal types for the unions derived from the list. */
export function defineEngine<const Name extends string, const Role extends EngineRole>(engine: EngineModule<Name, Role>): EngineModule<Name, Role> {
  return engine;
}

import type { SourceEngine, WarehouseEngine } from '@svc/connectors';
import type { DriverErrorMapper, PipelineEngine } from '@svc/engines';
import { postgresEngine } from '@svc/postgres-engine';
import { redshiftEngine } from '@svc/redshift-engine';
import { sqlServerEngine } from '@svc/sqlserver-engine';

/** Every engine a connection string or Warehouse.Url can name, each with what it implements. */
export type EngineTable = Readonly<Record<SourceEngine | WarehouseEngine, PipelineEngine>>;

/** The engines of this build: one line per engine (docs/ENGINES.md). */
export const ENGINE_TABLE: EngineTable = {
  postgres: postgresEngine,
  sqlserver: sqlServerEngine,
  redshift: redshiftEngine,
};

/** Every engine's driver-error mapper, once each, for the failure classifier. */
export function driverErrorMappers(engines: EngineTable): readonly DriverErrorMapper[] {
  return [...new Set(Object.values(engines).map((engine) => engine.errorKind))];
}

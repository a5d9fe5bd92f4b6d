import { ENGINES, type EngineName } from '@svc/engine-list';
import type { DriverErrorMapper, PipelineEngine } from '@svc/engines';

/** Every engine a connection string or Warehouse.Url can name, each with what it implements. */
export type EngineTable = Readonly<Record<EngineName, PipelineEngine>>;

/** The engines of this build, as the engine list names them (docs/ENGINES.md). */
export const ENGINE_TABLE = Object.fromEntries(ENGINES.map((engine) => [engine.name, engine.pipeline])) as EngineTable;

/** Every engine's driver-error mapper, once each, for the failure classifier. */
export function driverErrorMappers(engines: EngineTable): readonly DriverErrorMapper[] {
  return [...new Set(Object.values(engines).map((engine) => engine.errorKind))];
}

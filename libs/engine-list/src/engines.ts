import { WAREHOUSE_SECRETS, type DatabaseAccess, type EngineModule, type EngineRole, type WarehouseSecret } from '@svc/engines';
import { ENGINES } from './engine-list';

type ListedEngine = (typeof ENGINES)[number];
/** The names of the engines (a union of modules) that play a role. */
export type NamesPlaying<Engine, Role extends EngineRole> = Engine extends { name: infer Name; roles: readonly (infer Played)[] } ? (Role extends Played ? Name : never) : never;

/** Every engine of this build. */
export type EngineName = ListedEngine['name'];
/** The engines a Source or Staging connection string can name. */
export type SourceEngine = NamesPlaying<ListedEngine, 'source' | 'staging'>;
/** The engines a Warehouse.Url can name. */
export type WarehouseEngine = NamesPlaying<ListedEngine, 'warehouse'>;

const LISTED: readonly EngineModule[] = ENGINES;

export const ENGINE_NAMES: readonly EngineName[] = ENGINES.map((engine) => engine.name);

/** The engines that play a role, in the list's order. */
export function enginesPlaying(role: EngineRole): readonly EngineModule[] {
  return LISTED.filter((engine) => engine.roles.includes(role));
}

/** The module of a listed engine. */
export function engineNamed(name: EngineName): EngineModule {
  const engine = LISTED.find((listed) => listed.name === name);
  if (engine === undefined) throw new Error(`no engine named ${name} in the engine list`);
  return engine;
}

/** The engine's name as users know it (`SQL Server`), for messages. */
export function displayNameOf(name: EngineName): string {
  return engineNamed(name).displayName;
}

/** How Create and Alter reach each engine of a Source or Staging connection string. */
export const DATABASE_ACCESS = Object.fromEntries(
  LISTED.flatMap((engine) => (engine.databaseAccess === null ? [] : [[engine.name, engine.databaseAccess]])),
) as Readonly<Record<SourceEngine, DatabaseAccess>>;

/** "a, b or c" */
function oneOf(forms: readonly string[]): string {
  return forms.length <= 1 ? forms.join('') : `${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1] ?? ''}`;
}

export const UNSUPPORTED_CONNECTION_STRING = `unsupported connection string: expected ${oneOf(LISTED.flatMap((engine) => engine.connectionStringForms))}`;

/** Engine named by a source or staging connection string; null when it is none of the supported forms. */
export function sourceEngineOf(connectionString: string): SourceEngine | null {
  const engine = LISTED.find((listed) => listed.databaseAccess?.recognizes(connectionString) === true);
  return engine === undefined ? null : (engine.name as SourceEngine);
}

/** The access of the engine a connection string names, or null. */
export function databaseAccessOf(connectionString: string): DatabaseAccess | null {
  const engine = sourceEngineOf(connectionString);
  return engine === null ? null : DATABASE_ACCESS[engine];
}

/** Engine named by Warehouse.Url, or null. */
export function warehouseEngineOf(url: string): WarehouseEngine | null {
  const engine = LISTED.find((listed) => listed.recognizesWarehouseUrl?.(url) === true);
  return engine === undefined ? null : (engine.name as WarehouseEngine);
}

/**
 * The stored Warehouse secrets the engine's warehouse connector sends to the server Warehouse.Url names; for a URL of
 * no engine, every secret any engine sends there. An engine that does not say is taken to send them all.
 */
export function secretsSentToWarehouseServer(engine: WarehouseEngine | null): readonly WarehouseSecret[] {
  const engines = engine === null ? enginesPlaying('warehouse') : [engineNamed(engine)];
  const sent = new Set(engines.flatMap((listed) => listed.warehouseServerReceives ?? WAREHOUSE_SECRETS));
  return WAREHOUSE_SECRETS.filter((secret) => sent.has(secret));
}

/** The schemas whose tables keep their bare name in the warehouse (DESIGN §6): each engine's default schema. */
export const DEFAULT_SCHEMAS: ReadonlySet<string> = new Set(LISTED.map((engine) => engine.defaultSchema));

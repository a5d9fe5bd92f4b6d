import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { warehouseTableName } from '@svc/contracts';
import type { WarehouseEndpoint } from '@svc/engines';
import { ENGINES } from './engine-list';
import { DATABASE_ACCESS, DEFAULT_SCHEMAS, ENGINE_NAMES, UNSUPPORTED_CONNECTION_STRING, displayNameOf, enginesPlaying, type NamesPlaying, type WarehouseEngine } from './engines';

const ROOT = join(__dirname, '..', '..', '..');
const LIBS = join(ROOT, 'libs');

/** The engine folders as eslint.config.mjs finds them: a folder of libs/ with an `engine` library. */
const engineFolders = readdirSync(LIBS).filter((name) => existsSync(join(LIBS, name, 'engine', 'project.json')));
const librariesOf = (engine: string) => readdirSync(join(LIBS, engine)).filter((library) => existsSync(join(LIBS, engine, library, 'project.json')));
const paths = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameType = <A, B>(proof: Same<A, B>) => proof;

describe('the engine list', () => {
  it('names exactly the engine folders, which the lint boundaries read from the same place', () => {
    expect([...ENGINE_NAMES].sort()).toEqual([...engineFolders].sort());
  });

  it('reaches every library by one pattern: @svc/<engine>/<library> is libs/<engine>/<library>/src/index.ts, so an engine adds no alias', () => {
    expect(paths['@svc/*']).toEqual(['libs/*/src/index.ts']);
    expect(paths['@svc/*/testing']).toEqual(['libs/*/src/testing/index.ts']);
    const named = Object.keys(paths).filter((alias) => !alias.includes('*'));
    expect(named.filter((alias) => engineFolders.some((engine) => alias.startsWith(`@svc/${engine}`)))).toEqual([]);
  });

  it.each(engineFolders)('gives every library of libs/%s its entry and its engine tag', (engine) => {
    for (const library of librariesOf(engine)) {
      expect(existsSync(join(LIBS, engine, library, 'src', 'index.ts'))).toBe(true);
      const project = JSON.parse(readFileSync(join(LIBS, engine, library, 'project.json'), 'utf8')) as { name: string; tags: string[] };
      expect(project).toMatchObject({ name: `${engine}-${library}`, tags: expect.arrayContaining([`engine:${engine}`]) as unknown });
    }
  });

  it.each(ENGINES.map((engine) => [engine.name, engine] as const))('%s brings what each of its roles needs, and nothing for a role it does not play', (_name, engine) => {
    const plays = (role: 'source' | 'staging' | 'warehouse') => (engine.roles as readonly string[]).includes(role);
    const hasConnectionString = plays('source') || plays('staging');
    expect({
      source: engine.pipeline.openSource !== undefined,
      staging: engine.pipeline.openStaging !== undefined,
      warehouse: engine.pipeline.openWarehouse !== undefined,
      databaseAccess: engine.databaseAccess !== null,
      connectionStringForms: engine.connectionStringForms.length > 0,
      recognizesWarehouseUrl: 'recognizesWarehouseUrl' in engine,
      saysWhatItsWarehouseServerReceives: 'warehouseServerReceives' in engine,
      readsTypes: engine.types.reads !== undefined,
      declaresTypes: engine.types.declares !== undefined,
    }).toEqual({
      source: plays('source'),
      staging: plays('staging'),
      warehouse: plays('warehouse'),
      databaseAccess: hasConnectionString,
      connectionStringForms: hasConnectionString,
      recognizesWarehouseUrl: plays('warehouse'),
      saysWhatItsWarehouseServerReceives: plays('warehouse'),
      readsTypes: plays('source'),
      declaresTypes: plays('warehouse'),
    });
  });

  it('derives the engine unions from the roles the list declares', () => {
    type Listed = { name: 'both'; roles: readonly ('source' | 'warehouse')[] } | { name: 'reader'; roles: readonly ('source' | 'staging')[] } | { name: 'sink'; roles: readonly 'warehouse'[] };
    expect(sameType<NamesPlaying<Listed, 'source' | 'staging'>, 'both' | 'reader'>(true)).toBe(true);
    expect(sameType<NamesPlaying<Listed, 'warehouse'>, 'both' | 'sink'>(true)).toBe(true);
    // The warehouse URL grammar (libs/engines) names only warehouse engines of the list.
    expect(sameType<Extract<WarehouseEndpoint['engine'], WarehouseEngine>, WarehouseEndpoint['engine']>(true)).toBe(true);
    const connectionStringEngines = ENGINES.filter((engine) => engine.databaseAccess !== null).map((engine) => engine.name);
    expect(Object.keys(DATABASE_ACCESS)).toEqual(connectionStringEngines);
    expect(connectionStringEngines).toEqual(expect.arrayContaining(['postgres', 'sqlserver']));
    expect(enginesPlaying('warehouse').map((engine) => engine.name)).toEqual(expect.arrayContaining(['postgres', 'redshift']));
  });

  it('words messages with the engines\' own names and connection string forms', () => {
    expect(displayNameOf('sqlserver')).toBe('SQL Server');
    expect(displayNameOf('postgres')).toBe('PostgreSQL');
    expect(UNSUPPORTED_CONNECTION_STRING).toMatch(/^unsupported connection string: expected /);
    for (const form of ENGINES.flatMap((engine) => engine.connectionStringForms)) expect(UNSUPPORTED_CONNECTION_STRING).toContain(form);
    expect(UNSUPPORTED_CONNECTION_STRING).toContain('postgres://…');
  });

  it('keeps the bare table name in the warehouse for exactly the engines\' default schemas (contracts\' warehouseTableName)', () => {
    expect([...DEFAULT_SCHEMAS].sort()).toEqual([...new Set(ENGINES.map((engine) => engine.defaultSchema))].sort());
    expect([...DEFAULT_SCHEMAS]).toEqual(expect.arrayContaining(['dbo', 'public']));
    for (const schema of DEFAULT_SCHEMAS) expect(warehouseTableName({ schema, name: 'orders' }, DEFAULT_SCHEMAS)).toBe('orders');
    for (const schema of ['sales', 'svc_ct', 'Public', 'DBO']) expect(warehouseTableName({ schema, name: 'orders' }, DEFAULT_SCHEMAS)).toBe(`${schema}_orders`);
  });
});

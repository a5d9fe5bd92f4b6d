import { ENGINES } from '@svc/engine-list';
import { defineEngine, type EngineModule } from '@svc/engines';
import { ENGINE_PAIRS, POSTGRES_TO_POSTGRES, POSTGRES_TO_REDSHIFT_DIALECT, TRIGGER_PAIR_PREFIX, enginePairNamed, enginePairs, selectedPairs, type EnginePair } from './engine-pairs';

const SQLSERVER_MODEL_TO_POSTGRES = enginePairNamed('SQL Server modelled on PostgreSQL (not a real SQL Server) → PostgreSQL', ENGINE_PAIRS);
const SQLSERVER_MODEL_TO_REDSHIFT_DIALECT = enginePairNamed(
  'SQL Server modelled on PostgreSQL (not a real SQL Server) → Redshift dialect executed on PostgreSQL (not a real Redshift)',
  ENGINE_PAIRS,
);
const TRIGGERS_TO_REDSHIFT_DIALECT = enginePairNamed(`${TRIGGER_PAIR_PREFIX} → Redshift dialect executed on PostgreSQL (not a real Redshift)`, ENGINE_PAIRS);
const MARIADB_TO_REDSHIFT_DIALECT = enginePairNamed('MariaDB → Redshift dialect executed on PostgreSQL (not a real Redshift)', ENGINE_PAIRS);
const names = (pairs: readonly EnginePair[]) => pairs.map((pair) => pair.name);

const postgresToRedshift = (env: NodeJS.ProcessEnv) => enginePairNamed('PostgreSQL → Redshift', enginePairs(env));
const sqlServerToRedshift = (env: NodeJS.ProcessEnv) => enginePairNamed('SQL Server → Redshift', enginePairs(env));
const sqlServerToPostgres = (env: NodeJS.ProcessEnv) => enginePairNamed('SQL Server → PostgreSQL', enginePairs(env));

describe('engine pairs of the generic suites', () => {
  it('pairs every source engine of the engine list with every warehouse engine, PostgreSQL → PostgreSQL first and always run', () => {
    expect(ENGINE_PAIRS[0]).toBe(POSTGRES_TO_POSTGRES);
    expect(POSTGRES_TO_POSTGRES.unavailable).toBeNull();
    const known = [
      'PostgreSQL → PostgreSQL',
      'PostgreSQL → Redshift',
      'PostgreSQL → Redshift dialect executed on PostgreSQL (not a real Redshift)',
      'SQL Server → PostgreSQL',
      'SQL Server → Redshift',
      'SQL Server → Redshift dialect executed on PostgreSQL (not a real Redshift)',
      'SQL Server modelled on PostgreSQL (not a real SQL Server) → PostgreSQL',
      'SQL Server modelled on PostgreSQL (not a real SQL Server) → Redshift',
      'SQL Server modelled on PostgreSQL (not a real SQL Server) → Redshift dialect executed on PostgreSQL (not a real Redshift)',
    ];
    const names = ENGINE_PAIRS.map((pair) => pair.name);
    expect(names.filter((name) => known.includes(name))).toEqual(known);
    // Every source engine with every warehouse engine: one pair per way the suites hold the warehouse.
    const sources = ENGINES.filter((engine) => (engine.roles as readonly string[]).includes('source'));
    for (const source of sources) {
      for (const warehouse of ENGINES.filter((engine) => (engine.roles as readonly string[]).includes('warehouse'))) {
        expect(names).toContain(`${source.displayName} → ${warehouse.displayName}`);
      }
    }
  });

  it('lists the pairs of an engine without a suite fixture, and reports them as not run, never green', () => {
    const toy: EngineModule = defineEngine({ ...ENGINES[2], name: 'toy', displayName: 'Toy', roles: ['warehouse'] });
    const pairs = enginePairs({}, [...ENGINES, toy]);
    const toyPairs = pairs.filter((pair) => pair.name.endsWith('→ Toy'));
    const sources = ENGINES.filter((engine) => (engine.roles as readonly string[]).includes('source'));
    expect(names(toyPairs).sort()).toEqual(
      [...sources.map((source) => `${source.displayName} → Toy`), `${TRIGGER_PAIR_PREFIX} → Toy`, 'SQL Server modelled on PostgreSQL (not a real SQL Server) → Toy', 'MariaDB → Toy'].sort(),
    );
    expect(toyPairs.find((pair) => pair.name === 'SQL Server modelled on PostgreSQL (not a real SQL Server) → Toy')?.unavailable).toBe(
      'Toy has no suite fixture (SUITE_FIXTURES in tools/e2e/src/engine-pairs.ts)',
    );
    for (const pair of toyPairs) expect(pair.unavailable?.endsWith('Toy has no suite fixture (SUITE_FIXTURES in tools/e2e/src/engine-pairs.ts)')).toBe(true);
    expect(toyPairs.find((pair) => pair.name === 'PostgreSQL → Toy')?.unavailable).toBe('Toy has no suite fixture (SUITE_FIXTURES in tools/e2e/src/engine-pairs.ts)');
    expect(toyPairs.find((pair) => pair.name === 'SQL Server → Toy')?.unavailable).toBe('MSSQL_URL is not set; Toy has no suite fixture (SUITE_FIXTURES in tools/e2e/src/engine-pairs.ts)');
    expect(() => toyPairs[0]?.openWarehouse({} as never)).toThrow('PostgreSQL → Toy does not run');
    expect(toyPairs.find((pair) => pair.name === 'SQL Server → Toy')?.tableName('public', 'items')).toBe('[dbo].[items]');
  });

  it('runs the real Redshift pairs exactly when the cluster and its bucket are named, and says which variable is missing', () => {
    const unset = postgresToRedshift({});
    expect(unset.unavailable).toBe('REDSHIFT_URL is not set; REDSHIFT_S3_BUCKET is not set; REDSHIFT_S3_REGION is not set; AWS_ACCESS_KEY_ID is not set; AWS_SECRET_ACCESS_KEY is not set');
    expect(() => unset.openWarehouse({} as never)).toThrow('PostgreSQL → Redshift does not run');
    const live = {
      REDSHIFT_URL: 'redshift://suite:S3cret%40x@cluster.abc.us-east-1.redshift.amazonaws.com:5439/dev',
      REDSHIFT_S3_BUCKET: 'suite-bucket',
      REDSHIFT_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'secret',
    };
    const set = postgresToRedshift(live);
    expect(set.unavailable).toBeNull();
    const fields = set.warehouse({} as never);
    expect(fields).toMatchObject({ url: 'redshift://cluster.abc.us-east-1.redshift.amazonaws.com:5439', username: 'suite', password: 'S3cret@x', bucketName: 'suite-bucket', accessKey: 'AKIAEXAMPLE' });
    expect(fields.databaseName).toMatch(/^svc_suite_\w+_warehouse$/);
    // No local S3 endpoint: the services write to the bucket the cluster reads.
    expect(set.stackEnv).toMatchObject({ S3_ENDPOINT: '' });
    expect(sqlServerToRedshift(live).unavailable).toBe('MSSQL_URL is not set');
    expect(sqlServerToRedshift({ ...live, MSSQL_URL: 'mssql://sa:Secret-1@sql.example.com:1433' }).unavailable).toBeNull();
    const specified = ENGINE_PAIRS.find((pair) => pair.name === 'SQL Server → Redshift');
    if (!process.env['MSSQL_URL']) expect(specified?.unavailable).toContain('MSSQL_URL is not set');
    if (!process.env['REDSHIFT_URL']) expect(specified?.unavailable).toContain('REDSHIFT_URL is not set');
  });

  it('runs SQL Server → PostgreSQL exactly when MSSQL_URL names a server, and says so when it does not', () => {
    const unset = sqlServerToPostgres({});
    expect(unset.unavailable).toBe('MSSQL_URL is not set');
    expect(() => unset.openSource({} as never)).toThrow('SQL Server → PostgreSQL does not run: MSSQL_URL is not set');
    const set = sqlServerToPostgres({ MSSQL_URL: 'mssql://sa:Secret-1@sql.example.com:1433' });
    expect(set.unavailable).toBeNull();
    expect(set.tableName('public', 'items')).toBe('[dbo].[items]');
    expect(POSTGRES_TO_POSTGRES.tableName('public', 'items')).toBe('[public].[items]');
  });

  it('runs only the pairs ENGINE_PAIRS names, and reports every other one as not run with the variable as its reason', () => {
    expect(selectedPairs(ENGINE_PAIRS, {})).toEqual(ENGINE_PAIRS);
    expect(selectedPairs(ENGINE_PAIRS, { ENGINE_PAIRS: ' , ' })).toEqual(ENGINE_PAIRS);
    const chosen = selectedPairs(ENGINE_PAIRS, { ENGINE_PAIRS: 'Dialect' });
    expect(chosen.map((pair) => pair.name)).toEqual(ENGINE_PAIRS.map((pair) => pair.name));
    expect(chosen.filter((pair) => pair.unavailable === null)).toEqual([POSTGRES_TO_REDSHIFT_DIALECT, TRIGGERS_TO_REDSHIFT_DIALECT, SQLSERVER_MODEL_TO_REDSHIFT_DIALECT, MARIADB_TO_REDSHIFT_DIALECT]);
    const left = chosen.find((pair) => pair.name === POSTGRES_TO_POSTGRES.name);
    expect(left?.unavailable).toBe('left out by ENGINE_PAIRS=Dialect');
    expect(() => left?.openSource({} as never)).toThrow('PostgreSQL → PostgreSQL does not run: left out by ENGINE_PAIRS=Dialect');
    const sqlServer = selectedPairs([sqlServerToPostgres({})], { ENGINE_PAIRS: 'dialect' })[0];
    expect(sqlServer?.unavailable).toBe('left out by ENGINE_PAIRS=dialect; MSSQL_URL is not set');
    const two = selectedPairs(ENGINE_PAIRS, { ENGINE_PAIRS: 'PostgreSQL → PostgreSQL, dialect' }).filter((pair) => pair.unavailable === null);
    expect(two).toEqual([POSTGRES_TO_POSTGRES, POSTGRES_TO_REDSHIFT_DIALECT, TRIGGERS_TO_REDSHIFT_DIALECT, SQLSERVER_MODEL_TO_REDSHIFT_DIALECT, MARIADB_TO_REDSHIFT_DIALECT]);
  });

  it('runs the PostgreSQL pairs with the source on a logical server (log capture), and the trigger fallback on the test server', () => {
    expect(POSTGRES_TO_POSTGRES.sourceServer).toBeDefined();
    expect(POSTGRES_TO_REDSHIFT_DIALECT.sourceServer).toBeDefined();
    const triggers = enginePairNamed(`${TRIGGER_PAIR_PREFIX} → PostgreSQL`, ENGINE_PAIRS);
    expect(triggers.unavailable).toBeNull();
    expect(triggers.sourceServer).toBeUndefined();
  });

  it('always runs SQL Server modelled on PostgreSQL, on the stack\'s own databases through the test hook, and says it is no real SQL Server', () => {
    const stack = { source: { name: 'svc_e2e_source_x', url: 'postgres://postgres@127.0.0.1:5432/svc_e2e_source_x' }, staging: { name: 'svc_e2e_staging_x' } } as never;
    for (const pair of [SQLSERVER_MODEL_TO_POSTGRES, SQLSERVER_MODEL_TO_REDSHIFT_DIALECT]) {
      expect(pair.unavailable).toBeNull();
      expect(pair.name).toContain('(not a real SQL Server)');
      expect(pair.stackEnv?.['SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES']).toMatch(/^postgres:\/\//);
      expect(pair.sourceConnectionString(stack)).toContain('Database=svc_e2e_source_x;');
      expect(pair.stagingConnectionString(stack)).toContain('Database=svc_e2e_staging_x;');
      expect(pair.tableName('public', 'items')).toBe('[dbo].[items]');
      expect(pair.repairsByReseed).toBe(true);
    }
    expect(SQLSERVER_MODEL_TO_REDSHIFT_DIALECT.stackEnv).toMatchObject({ SVC_TEST_HOOK_REDSHIFT_ON_POSTGRES: '1' });
  });
});

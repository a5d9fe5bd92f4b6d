import { Portable, type BatchDescriptor } from '@svc/contracts';
import { sampleReplicationConfig } from '@svc/testing';
import { EngineRegistry, UnsupportedEngineError } from './engine-registry';
import { ENGINES } from '@svc/engine-list';
import { ENGINE_TABLE, driverErrorMappers } from './engine-table';
import { FakeEngine } from './testing/fake-engine';

describe('the engine table', () => {
  it('says which roles each engine of this build plays', () => {
    const roles = Object.fromEntries(
      Object.entries(ENGINE_TABLE).map(([name, engine]) => [name, { source: !!engine.openSource, staging: !!engine.openStaging, warehouse: !!engine.openWarehouse }]),
    );
    expect(roles).toMatchObject({
      postgres: { source: true, staging: true, warehouse: true },
      sqlserver: { source: true, staging: true, warehouse: false },
      redshift: { source: false, staging: false, warehouse: true },
    });
    const played = (roles: readonly string[]) => ({ source: roles.includes('source'), staging: roles.includes('staging'), warehouse: roles.includes('warehouse') });
    expect(roles).toEqual(Object.fromEntries(ENGINES.map((engine) => [engine.name, played(engine.roles)])));
  });

  it('gives the classifier each engine\'s driver-error mapper once, PostgreSQL\'s before Redshift\'s (which reads its own XX000 errors)', () => {
    const mappers = driverErrorMappers(ENGINE_TABLE);
    expect(mappers).toEqual([...new Set(ENGINES.map((engine) => engine.pipeline.errorKind))]);
    expect(mappers.filter((mapper) => [ENGINE_TABLE.postgres, ENGINE_TABLE.sqlserver, ENGINE_TABLE.redshift].some((engine) => engine.errorKind === mapper))).toEqual([
      ENGINE_TABLE.postgres.errorKind,
      ENGINE_TABLE.sqlserver.errorKind,
      ENGINE_TABLE.redshift.errorKind,
    ]);
  });
});

describe('EngineRegistry', () => {
  it('refuses a role the named engine does not play in this build, naming role and engine', () => {
    const registry = new EngineRegistry();
    const sqlServerWarehouse = sampleReplicationConfig({ source: { connectionString: 'Server=db.example.com;Database=app;User Id=u;Password=p;' } });

    expect(() => registry.staging({ ...sqlServerWarehouse, staging: { ...sqlServerWarehouse.staging, connectionString: 'oracle://nowhere' } })).toThrow(new UnsupportedEngineError('staging', 'unknown'));
  });

  it('opens a Redshift warehouse and its file rewriter without connecting', async () => {
    const registry = new EngineRegistry();
    const redshift = sampleReplicationConfig({ warehouse: { url: 'examplecluster.abc123.us-west-2.redshift.amazonaws.com:5439' } });
    expect(registry.warehouse(redshift)).toBe(registry.warehouse(redshift));
    const batch: BatchDescriptor = { batchId: 'b', replicationId: 'r', epoch: 1, definition: { table: { schema: 'public', name: 't' }, columns: [{ name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false }], primaryKey: ['id'], estimatedRows: 0 }, body: { kind: 'seed' as const, seedId: 's', part: 0, final: true, startVersion: '1' } };
    expect(registry.stagedFileRows(redshift, batch)?.push(Buffer.from('1\n'))).toEqual([]);
    expect(registry.stagedFileRows(sampleReplicationConfig(), batch)).toBeNull();
    await registry.closeAll();
  });

  it('opens SQL Server sources and stagings without connecting (a pool connects on first use)', async () => {
    const registry = new EngineRegistry();
    const sqlServer = sampleReplicationConfig({
      source: { connectionString: 'Server=db.example.com;Database=app;User Id=u;Password=p;' },
      staging: { connectionString: 'Server=staging.example.com;Database=app;User Id=u;Password=p;' },
    });
    expect(registry.source(sqlServer)).toBe(registry.source(sqlServer));
    expect(registry.staging(sqlServer)).toBeDefined();
    await registry.closeAll();
  });

  it('opens connectors from the table it is given, one per connection, reused', () => {
    const engine = new FakeEngine();
    const registry = new EngineRegistry(engine.table());
    const config = sampleReplicationConfig();

    expect(registry.source(config)).toBe(engine.source);
    expect(registry.staging(config)).toBe(engine.staging);
    expect(registry.warehouse(config)).toBe(engine.warehouse);
    expect(registry.source(config)).toBe(registry.source(config));
  });
});

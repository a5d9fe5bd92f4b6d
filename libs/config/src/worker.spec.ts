import { ConfigError } from './env-reader';
import { loadWorkerConfig } from './worker';

const WORKER_KEY = { SVC_WORKER_KEY: 'b'.repeat(64) };

describe('loadWorkerConfig: connection pools', () => {
  it('sizes each pool from the work it serves: three source connections a concurrent batch (an extract, a validation\'s two), two elsewhere', () => {
    expect(loadWorkerConfig(WORKER_KEY).pools).toEqual({ sourceConnections: 12, stagingConnections: 10, warehouseConnections: 8, waitMs: 60_000 });
    expect(loadWorkerConfig({ ...WORKER_KEY, WORKER_CONCURRENCY: '8' }).pools).toEqual({ sourceConnections: 24, stagingConnections: 16, warehouseConnections: 16, waitMs: 60_000 });
  });

  it('takes the settings when given, and names a wrong one with its rule', () => {
    const environment = { ...WORKER_KEY, SOURCE_MAX_CONNECTIONS: '5', STAGING_MAX_CONNECTIONS: '3', WAREHOUSE_MAX_CONNECTIONS: '2', POOL_WAIT_SECONDS: '5' };
    expect(loadWorkerConfig(environment).pools).toEqual({ sourceConnections: 5, stagingConnections: 3, warehouseConnections: 2, waitMs: 5_000 });
    // A validation takes two connections at once: a pool of one could never give them.
    expect(() => loadWorkerConfig({ ...WORKER_KEY, SOURCE_MAX_CONNECTIONS: '1' })).toThrow(ConfigError);
    expect(() => loadWorkerConfig({ ...WORKER_KEY, SOURCE_MAX_CONNECTIONS: '1', POOL_WAIT_SECONDS: 'soon' })).toThrow(
      /SOURCE_MAX_CONNECTIONS: must be at least 2[\s\S]*POOL_WAIT_SECONDS: must be an integer, got 'soon'/,
    );
  });
});

describe('loadWorkerConfig: when a change batch rebuilds its table (issue 39)', () => {
  it('rebuilds for 30 % of the rows and 10,000 rows by default; 0 % never', () => {
    expect(loadWorkerConfig(WORKER_KEY).rebuild).toEqual({ share: 0.3, minRows: 10_000 });
    expect(loadWorkerConfig({ ...WORKER_KEY, REBUILD_PERCENT: '0', REBUILD_MIN_ROWS: '1' }).rebuild).toEqual({ share: 0, minRows: 1 });
    expect(() => loadWorkerConfig({ ...WORKER_KEY, REBUILD_PERCENT: '101' })).toThrow(/REBUILD_PERCENT: must be at most 100/);
    expect(() => loadWorkerConfig({ ...WORKER_KEY, REBUILD_MIN_ROWS: '0' })).toThrow(/REBUILD_MIN_ROWS: must be at least 1/);
  });
});

describe('loadWorkerConfig: the host policy at connect (issue 36)', () => {
  it('refuses loopback unless ALLOW_LOOPBACK_TARGETS says otherwise, as job-registry does', () => {
    expect(loadWorkerConfig(WORKER_KEY).allowLoopbackTargets).toBe(false);
    expect(loadWorkerConfig({ ...WORKER_KEY, ALLOW_LOOPBACK_TARGETS: 'true' }).allowLoopbackTargets).toBe(true);
  });
});

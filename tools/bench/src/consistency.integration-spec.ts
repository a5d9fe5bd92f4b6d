import { Pool } from 'pg';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { fingerprints, waitUntilConsistent } from './consistency';

const TABLES = `
CREATE TABLE %s.pgbench_accounts (aid int PRIMARY KEY, abalance int);
CREATE TABLE %s.pgbench_tellers (tid int PRIMARY KEY, tbalance int);
CREATE TABLE %s.pgbench_branches (bid int PRIMARY KEY, bbalance int);
INSERT INTO %s.pgbench_accounts SELECT g, g FROM generate_series(1, 100) g;
INSERT INTO %s.pgbench_tellers SELECT g, 0 FROM generate_series(1, 10) g;
INSERT INTO %s.pgbench_branches VALUES (1, 0);`;

/**
 * pg-pool's end() resolves once its clients are told to close, before their sockets are; the databases are then
 * dropped WITH (FORCE), whose termination (57P01) can reach a client still closing. Without a listener that error
 * is an unhandled 'error' event that fails the whole suite; queries still reject through their own promises.
 */
function poolOf(url: string): Pool {
  const pool = new Pool({ connectionString: url });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

describe('warehouse catch-up check (real PostgreSQL)', () => {
  let sourceDb: TempDatabase;
  let warehouseDb: TempDatabase;
  let source: Pool;
  let warehouse: Pool;

  beforeAll(async () => {
    [sourceDb, warehouseDb] = await Promise.all([createTempDatabase('svc_bench_fp_src'), createTempDatabase('svc_bench_fp_dw')]);
    source = poolOf(sourceDb.url);
    warehouse = poolOf(warehouseDb.url);
    await source.query(TABLES.replace(/%s/g, 'public'));
    await warehouse.query(`CREATE SCHEMA bench; ${TABLES.replace(/%s/g, 'bench')}`);
  });

  afterAll(async () => {
    await Promise.allSettled([source?.end(), warehouse?.end()]);
    await Promise.allSettled([sourceDb?.drop(), warehouseDb?.drop()]);
  });

  it('fingerprints each pgbench table by row count and balance sum', async () => {
    await expect(fingerprints(source, 'public')).resolves.toEqual({ pgbench_accounts: '100:5050', pgbench_tellers: '10:0', pgbench_branches: '1:0' });
  });

  it('sees a lost balance change, and equality once it arrives', async () => {
    await source.query('UPDATE public.pgbench_tellers SET tbalance = tbalance + 7 WHERE tid = 3');
    await expect(waitUntilConsistent(source, warehouse, 'bench', 300)).resolves.toBe(false);
    const arrives = new Promise((done) => setTimeout(done, 200)).then(() => warehouse.query('UPDATE bench.pgbench_tellers SET tbalance = tbalance + 7 WHERE tid = 3'));
    await expect(waitUntilConsistent(source, warehouse, 'bench', 5000)).resolves.toBe(true);
    await arrives;
  });
});

import { Client } from 'pg';
import { locateServerPrograms } from './postgres-tools';
import { PrivateCluster } from './private-cluster';

describe('PrivateCluster (real initdb and postgres)', () => {
  const programs = locateServerPrograms({ path: process.env['PATH'] });
  let cluster: PrivateCluster | undefined;

  afterAll(async () => {
    await cluster?.stop();
  });

  it('starts a cluster of its own on a private port with the settings asked for, and removes it when stopped', async () => {
    cluster = await PrivateCluster.start(programs, { wal_level: 'logical', max_wal_senders: '4' });
    expect(cluster.port).not.toBe(5432);
    await cluster.createDatabase('bench_src');
    const client = new Client({ connectionString: cluster.url('bench_src') });
    await client.connect();
    try {
      const { rows } = await client.query<{ wal_level: string; db: string }>('SELECT current_setting($1) AS wal_level, current_database() AS db', ['wal_level']);
      expect(rows[0]).toEqual({ wal_level: 'logical', db: 'bench_src' });
    } finally {
      await client.end();
    }
    await cluster.stop();
    const after = new Client({ connectionString: cluster.url('postgres'), connectionTimeoutMillis: 2000 });
    await expect(after.connect()).rejects.toThrow();
    cluster = undefined;
  }, 60_000);
});

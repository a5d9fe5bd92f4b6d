import { Client } from 'pg';
import { createTempDatabase, waitUntil, type TempDatabase } from '@svc/testing';
import { BENCH_WAREHOUSE_SCHEMA } from './bench-settings';
import { PROBE_TABLE_SQL, ProbeWatcher, ProbeWriter } from './lag-measurement';

/**
 * The probe writer and watcher against real PostgreSQL, with this test standing in for the pipeline: it
 * copies probe rows to the "warehouse" a known delay after they were written.
 */
describe('probe lag (real PostgreSQL)', () => {
  const DELAY_S = 0.6;
  let source: TempDatabase;
  let warehouse: TempDatabase;
  const clients: Client[] = [];

  const connect = async (url: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    [source, warehouse] = await Promise.all([createTempDatabase('svc_bench_probe_src'), createTempDatabase('svc_bench_probe_dw')]);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.end()));
    await Promise.allSettled([source?.drop(), warehouse?.drop()]);
  });

  it('measures each probe from written_at to first sight in the warehouse', async () => {
    const sourceClient = await connect(source.url);
    const warehouseClient = await connect(warehouse.url);
    await sourceClient.query(PROBE_TABLE_SQL);
    await warehouseClient.query(`CREATE SCHEMA ${BENCH_WAREHOUSE_SCHEMA}; CREATE TABLE ${BENCH_WAREHOUSE_SCHEMA}.bench_probe (id bigint PRIMARY KEY, written_at timestamptz NOT NULL)`);

    // The stand-in pipeline, one pass at a time: each probe lands once it is DELAY_S old.
    let running = true;
    const pipeline = (async () => {
      let copied = '0';
      while (running) {
        const { rows } = await sourceClient.query<{ id: string; written_at: Date }>(
          `SELECT id::text, written_at FROM public.bench_probe WHERE id > $1 AND written_at <= clock_timestamp() - make_interval(secs => $2) ORDER BY id`,
          [copied, DELAY_S],
        );
        for (const row of rows) {
          await warehouseClient.query(`INSERT INTO ${BENCH_WAREHOUSE_SCHEMA}.bench_probe VALUES ($1, $2)`, [row.id, row.written_at]);
          copied = row.id;
        }
        await new Promise((done) => setTimeout(done, 20));
      }
    })();

    const writer = new ProbeWriter(await connect(source.url));
    const watcher = new ProbeWatcher(await connect(warehouse.url));
    watcher.start();
    writer.start();
    try {
      await waitUntil(async () => writer.written.length >= 8, 10000, 'eight probes');
      await writer.stop();
      await watcher.drain(writer.written, 15000);
    } finally {
      running = false;
      await pipeline;
    }

    expect(writer.written.length).toBeGreaterThanOrEqual(8);
    expect(writer.failures).toEqual([]);
    expect(watcher.failures).toEqual([]);
    expect([...watcher.lagById.keys()].sort()).toEqual([...writer.written].sort());
    for (const lag of watcher.lagById.values()) {
      expect(lag).toBeGreaterThanOrEqual(DELAY_S);
      expect(lag).toBeLessThan(DELAY_S + 1);
    }
  }, 30000);
});

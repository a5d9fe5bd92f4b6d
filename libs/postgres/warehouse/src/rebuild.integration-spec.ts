import { Client } from 'pg';
import type { WarehouseConnector } from '@svc/engines';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;
/** Rebuilds for any batch that changes a third of its table. */
let rebuilding: WarehouseConnector;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_rebuild');
  rebuilding = fixture.connector({ statementTimeoutMs: 30_000, rebuild: { share: 0.3, minRows: 1 } });
});

afterAll(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text'), column('city', 'text')], ['id']);
const SEED = Array.from({ length: 30 }, (_, index) => `${index + 1},n${index + 1},c${index + 1}\n`).join('');
/** Updates 1–10, deletes 11–15, inserts 31–35: 20 of 30 rows. */
const REWRITE = [
  ...Array.from({ length: 10 }, (_, index) => `U,${index + 1},changed ${index + 1},\n`),
  ...Array.from({ length: 5 }, (_, index) => `D,${index + 11},,\n`),
  ...Array.from({ length: 5 }, (_, index) => `I,${index + 31},new ${index + 31},x\n`),
].join('');

const fileNode = async (qualified: string): Promise<number> => (await fixture.rows<{ node: number }>(`SELECT relfilenode AS node FROM pg_class WHERE oid = $1::regclass`, [qualified]))[0].node;

describe('a change batch that rewrites most of a Type1 table rebuilds it', () => {
  it('leaves what a merge leaves: changed rows stamped by this load, untouched rows with their stamps', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1', true);
    await rebuilding.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [SEED], options, rebuilding);
    const stampsBefore = await fixture.rows<{ id: number; stamp: Date }>(`SELECT id, svc_sys_update_timestamp AS stamp FROM ${schema}.customers ORDER BY id`);
    const before = await fileNode(`${schema}.customers`);

    expect(await fixture.load(changeBatch(customers, 100, 110), [REWRITE], options, rebuilding)).toEqual({ applied: true, rowCount: 20 });

    expect(await fileNode(`${schema}.customers`)).not.toBe(before);
    const rows = await fixture.rows<{ id: number; name: string; city: string | null; stamp: Date }>(
      `SELECT id, name, city, svc_sys_update_timestamp AS stamp FROM ${schema}.customers ORDER BY id`,
    );
    expect(rows.map((row) => [row.id, row.name, row.city])).toEqual([
      ...Array.from({ length: 10 }, (_, index) => [index + 1, `changed ${index + 1}`, null]),
      ...Array.from({ length: 15 }, (_, index) => [index + 16, `n${index + 16}`, `c${index + 16}`]),
      ...Array.from({ length: 5 }, (_, index) => [index + 31, `new ${index + 31}`, 'x']),
    ]);
    const seededAt = stampsBefore[0].stamp.getTime();
    for (const row of rows) {
      if (row.id >= 16 && row.id <= 30) expect(row.stamp.getTime()).toBe(stampsBefore.find((seeded) => seeded.id === row.id)!.stamp.getTime());
      else expect(row.stamp.getTime()).toBeGreaterThan(seededAt);
    }
    await expect(fixture.rows(`INSERT INTO ${schema}.customers (id, name) VALUES (1, 'twice')`)).rejects.toThrow(/duplicate key/);
  });

  it('a Type2 table keeps its history: its changes are merged whatever their share', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type2');
    await rebuilding.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [SEED], options, rebuilding);
    const before = await fileNode(`${schema}.customers`);
    await fixture.load(changeBatch(customers, 100, 110), [REWRITE], options, rebuilding);
    expect(await fileNode(`${schema}.customers`)).toBe(before);
    expect(await fixture.count(`${schema}.customers`)).toBe(30 + 10 + 5);
  });

  it("a validation snapshot opened while a rebuild is in flight waits for it, and never sees the table empty", async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [SEED], options);
    // A rebuild as it runs: TRUNCATE and the rows back, in a transaction still open.
    const rebuild = new Client({ connectionString: fixture.database.url });
    await rebuild.connect();
    try {
      await rebuild.query('BEGIN');
      await rebuild.query(`CREATE TEMP TABLE kept AS SELECT * FROM ${schema}.customers`);
      await rebuild.query(`TRUNCATE ${schema}.customers`);
      await rebuild.query(`INSERT INTO ${schema}.customers SELECT * FROM kept`);
      const sums = (async () => {
        const reader = await fixture.warehouse.checksums(customers, options).openSnapshot();
        try {
          return await reader.bucketSums(1);
        } finally {
          await reader.close();
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await rebuild.query('COMMIT');
      expect((await sums).reduce((total, bucket) => total + bucket.rows, 0)).toBe(30);
    } finally {
      await rebuild.end();
    }
  });
});

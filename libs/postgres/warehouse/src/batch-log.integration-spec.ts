import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_batch_log');
});

afterAll(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text')], ['id']);
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

describe('the loaded-batch log', () => {
  it('forgets batches loaded before a cutoff, only in the schema asked for, and keeps the data', async () => {
    const schema = fixture.newSchema();
    const other = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    const otherOptions = fixture.options(other, 'Type1');
    for (const target of [options, otherOptions]) {
      await fixture.warehouse.ensureTable(customers, target);
      await fixture.load(seedBatch(customers, 'S', 0, true, 1), ['1,Ann\n'], target);
    }
    const old = changeBatch(customers, 100, 200, 1);
    const recent = changeBatch(customers, 200, 300, 1);
    await fixture.load(old, ['U,1,Ann 2\n'], options);
    await fixture.load(recent, ['I,2,Bob\n'], options);
    await fixture.load(old, ['U,1,Ann 2\n'], otherOptions);
    for (const name of [schema, other]) {
      await fixture.sql.query(`UPDATE ${name}.svc_sys_loaded_batches SET loaded_at = now() - interval '8 days' WHERE batch_id = $1`, [old.batchId]);
    }

    expect(await fixture.warehouse.forgetLoadedBatches(new Date(Date.now() - WEEK_MS), options)).toBe(1);
    expect(await fixture.warehouse.hasLoaded(old.batchId, options)).toBe(false);
    expect(await fixture.warehouse.hasLoaded(recent.batchId, options)).toBe(true);
    expect(await fixture.warehouse.hasLoaded(old.batchId, otherOptions)).toBe(true);
    expect(await fixture.warehouse.forgetLoadedBatches(new Date(Date.now() - WEEK_MS), options)).toBe(0);
    expect(await fixture.csv(`SELECT id, name FROM ${schema}.customers ORDER BY id`)).toBe('1,Ann 2\n2,Bob\n');
  });

  it('answers 0 for a schema nothing was loaded into yet', async () => {
    expect(await fixture.warehouse.forgetLoadedBatches(new Date(), fixture.options(fixture.newSchema(), 'Type2'))).toBe(0);
  });
});

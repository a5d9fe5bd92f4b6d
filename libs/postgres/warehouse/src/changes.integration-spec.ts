import { scrambledKeys } from '@svc/testing';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_changes');
});

afterAll(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text'), column('city', 'text')], ['id']);

/** Seeded: 1 Ann, 2 Bob, 3 Cy. */
const SEED = '1,Ann,Oslo\n2,Bob,Rome\n3,Cy,\n';
/** Insert 4, update 1, delete 2, primary-key update 3 → 30 (delete of the old key, insert of the new). */
const FIRST = 'I,4,Dee,Lima\nU,1,Ann,Bergen\nD,2,,\nD,3,,\nI,30,Cy,\n';
/** Re-insert 2, delete 4, and an update of 1 that changes nothing (the Type1 test loads it as two parts). */
const SECOND = 'I,2,Bob,Paris\nD,4,,\nU,1,Ann,Bergen\n';

interface HistoryRow {
  id: number;
  name: string | null;
  city: string | null;
  valid_from: Date;
  valid_to: Date | null;
  is_current: boolean;
  is_deleted: boolean;
}

describe('change batches', () => {
  it('Type1: inserts, updates, deletes, primary-key updates and re-inserts leave one row per live key', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [SEED], options);

    expect(await fixture.load(changeBatch(customers, 100, 110), [FIRST], options)).toEqual({ applied: true, rowCount: 5 });
    expect(await fixture.rows(`SELECT id, name, city FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', city: 'Bergen' },
      { id: 4, name: 'Dee', city: 'Lima' },
      { id: 30, name: 'Cy', city: null },
    ]);

    expect(await fixture.load(changeBatch(customers, 110, 120), ['I,2,Bob,Paris\n', 'D,4,,\nU,1,Ann,Bergen\n'], options)).toEqual({ applied: true, rowCount: 3 });
    expect(await fixture.rows(`SELECT id, name, city FROM ${schema}.customers ORDER BY id`)).toEqual([
      { id: 1, name: 'Ann', city: 'Bergen' },
      { id: 2, name: 'Bob', city: 'Paris' },
      { id: 30, name: 'Cy', city: null },
    ]);
  });

  it('Type2: each change closes the current version; deletes mark it deleted; an update that changes nothing adds no version', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type2');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [SEED], options);
    await fixture.load(changeBatch(customers, 100, 110), [FIRST], options);
    await fixture.load(changeBatch(customers, 110, 120), [SECOND], options);

    const history = await fixture.rows<HistoryRow>(
      `SELECT id, name, city, svc_sys_valid_from AS valid_from, svc_sys_valid_to AS valid_to, svc_sys_is_current AS is_current,
  svc_sys_is_deleted AS is_deleted
FROM ${schema}.customers ORDER BY id, svc_sys_row_id`,
    );
    expect(history.map((row) => [row.id, row.name, row.city, row.is_current, row.is_deleted, row.valid_to === null])).toEqual([
      [1, 'Ann', 'Oslo', false, false, false],
      [1, 'Ann', 'Bergen', true, false, true],
      [2, 'Bob', 'Rome', false, true, false],
      [2, 'Bob', 'Paris', true, false, true],
      [3, 'Cy', null, false, true, false],
      [4, 'Dee', 'Lima', false, true, false],
      [30, 'Cy', null, true, false, true],
    ]);
    const [annBefore, annNow] = [history[0], history[1]];
    expect(annBefore.valid_to).toEqual(annNow.valid_from);
    // The no-op update of the second batch left Ann's current version as the first batch made it.
    const dee = history[5];
    expect(annNow.valid_from.getTime()).toBeLessThan(dee.valid_to!.getTime());
  });

  it('Type2: a change equal to one of a key\'s two current rows (a broken copy being repaired) closes both and leaves one current row', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type2');
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [SEED], options);
    await fixture.load(changeBatch(customers, 100, 110), ['U,1,Ann,Bergen\n'], options);
    // Broken by hand: the unique index that keeps one current row per key is gone, and Ann's old version is current again.
    await fixture.rows(`DROP INDEX ${schema}.customers_svc_sys_current_key`);
    await fixture.rows(`UPDATE ${schema}.customers SET svc_sys_is_current = true WHERE id = 1 AND city = 'Oslo'`);
    await fixture.load(changeBatch(customers, 110, 120), ['U,1,Ann,Bergen\n'], options);
    const current = await fixture.rows<{ name: string; city: string }>(`SELECT name, city FROM ${schema}.customers WHERE id = 1 AND svc_sys_is_current`);
    expect(current).toEqual([{ name: 'Ann', city: 'Bergen' }]);
  });

  it.each(['Type1', 'Type2'] as const)('%s: a batch whose rows arrive in any order goes into the table in key order (its index filled page by page)', async (scdType) => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, scdType);
    await fixture.warehouse.ensureTable(customers, options);
    await fixture.load(seedBatch(customers, 'S', 0, true), [''], options);
    const ids = scrambledKeys(2000);
    await fixture.load(changeBatch(customers, 100, 110), [ids.map((id) => `I,${id},n${id},\n`).join('')], options);
    // Heap order of the inserted rows: ctid ascending must list the keys ascending.
    const inHeapOrder = await fixture.rows<{ id: number }>(`SELECT id FROM ${schema}.customers ORDER BY ctid`);
    expect(inHeapOrder.map((row) => row.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('a table without a primary key takes no change batch', async () => {
    const schema = fixture.newSchema();
    const events = table('public', 'events', [column('kind', 'text')], []);
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(events, options);
    await expect(fixture.load(changeBatch(events, 1, 2), ['I,a\n'], options)).rejects.toThrow(/no primary key/);
  });

  it('a malformed operation column fails the batch and loads nothing', async () => {
    const schema = fixture.newSchema();
    const options = fixture.options(schema, 'Type1');
    await fixture.warehouse.ensureTable(customers, options);
    await expect(fixture.load(changeBatch(customers, 1, 2), ['I,1,Ann,\nX,2,Bob,\n'], options)).rejects.toThrow(/check constraint/);
    expect(await fixture.count(`${schema}.customers`)).toBe(0);
    expect(await fixture.count(`${schema}.svc_sys_loaded_batches`)).toBe(0);
  });
});

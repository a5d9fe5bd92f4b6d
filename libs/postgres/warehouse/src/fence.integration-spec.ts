import type { ScdType } from '@svc/contracts';
import type { ApplyOutcome, WarehouseTableOptions } from '@svc/engines';
import { WarehouseFixture, changeBatch, column, seedBatch, table } from './testing/warehouse-fixture';

let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_fence');
});

afterAll(async () => {
  await fixture.stop();
});

const customers = table('public', 'customers', [column('id', 'integer'), column('name', 'text')], ['id']);
const STALE = { applied: false, rowCount: 0, stale: true };
const SCD_TYPES: ScdType[] = ['Type1', 'Type2'];

/** Every row of the target as CSV, history columns included (Type2): a stale batch must leave all of it as it was. */
async function everything(schema: string): Promise<string> {
  return fixture.csv(`SELECT * FROM ${schema}.customers ORDER BY 1, 2`);
}

/** The rows a reader sees now: every row of Type1, the current versions of Type2. */
async function current(schema: string, scdType: ScdType): Promise<string> {
  const where = scdType === 'Type2' ? 'WHERE svc_sys_is_current' : '';
  return fixture.csv(`SELECT id, name FROM ${schema}.customers ${where} ORDER BY id`);
}

async function seeded(scdType: ScdType): Promise<{ schema: string; options: WarehouseTableOptions }> {
  const schema = fixture.newSchema();
  const options = fixture.options(schema, scdType);
  await fixture.warehouse.ensureTable(customers, options);
  await fixture.load(seedBatch(customers, 'S', 0, true, 1), ['1,Ann\n2,Bob\n'], options);
  return { schema, options };
}

describe('work epochs (fence against cancelled work)', () => {
  it.each(SCD_TYPES)('%s: a change batch of an older unit after one of a newer unit is stale: nothing loaded, its files not read', async (scdType) => {
    const { schema, options } = await seeded(scdType);
    expect(await fixture.load(changeBatch(customers, 100, 200, 3), ['U,1,Ann 3\n'], options)).toEqual({ applied: true, rowCount: 1 });
    const before = await everything(schema);

    const older = changeBatch(customers, 100, 150, 2);
    expect(await fixture.warehouse.isStale(older, options)).toBe(true);
    const files = fixture.stage(older, ['D,1,\nU,2,Bob 2\n']);
    expect(await fixture.warehouse.loadBatch(older, files, fixture.files, options)).toEqual(STALE);

    expect(fixture.files.reads).not.toContain(files.partKeys[0]);
    expect(await everything(schema)).toBe(before);
    expect(await current(schema, scdType)).toBe('1,Ann 3\n2,Bob\n');
    expect(await fixture.warehouse.hasLoaded(older.batchId, options)).toBe(false);
  });

  it.each(SCD_TYPES)('%s: batches of the same epoch load one after another, and a newer epoch loads after an older one', async (scdType) => {
    const { schema, options } = await seeded(scdType);
    expect(await fixture.load(changeBatch(customers, 100, 200, 1), ['U,1,Ann 1\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await fixture.warehouse.isStale(changeBatch(customers, 200, 300, 1), options)).toBe(false);
    expect(await fixture.load(changeBatch(customers, 200, 300, 1), ['U,2,Bob 1\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await fixture.load(changeBatch(customers, 200, 400, 4), ['U,1,Ann 4\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await fixture.load(changeBatch(customers, 300, 400, 1), ['U,2,Bob late\n'], options)).toEqual(STALE);
    expect(await current(schema, scdType)).toBe('1,Ann 4\n2,Bob 1\n');
  });

  it.each(SCD_TYPES)('%s: a seed of a newer epoch fences change batches and seed parts of older work', async (scdType) => {
    const { schema, options } = await seeded(scdType);
    await fixture.load(seedBatch(customers, 'old', 0, false, 2), ['1,Old Ann\n'], options);
    expect(await fixture.load(seedBatch(customers, 'new', 0, false, 3), ['1,New Ann\n'], options)).toEqual({ applied: true, rowCount: 1 });

    expect(await fixture.load(changeBatch(customers, 100, 200, 2), ['I,7,Old Change\n'], options)).toEqual(STALE);
    const oldPart = seedBatch(customers, 'old', 1, true, 2);
    expect(await fixture.warehouse.isStale(oldPart, options)).toBe(true);
    expect(await fixture.load(oldPart, ['9,Old Zed\n'], options)).toEqual(STALE);
    expect(await current(schema, scdType)).toBe('1,Ann\n2,Bob\n');

    expect(await fixture.load(seedBatch(customers, 'new', 1, true, 3), ['3,New Cy\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await current(schema, scdType)).toBe('1,New Ann\n3,New Cy\n');
  });

  it('Type1: whichever of two concurrent loaders goes first, the newer unit of work has the last word', async () => {
    const { schema, options } = await seeded('Type1');
    const second = fixture.connector({ statementTimeoutMs: 30_000 });
    for (let round = 0; round < 6; round++) {
      const older = changeBatch(customers, 1000 + round, 2000 + round, 10 + 2 * round);
      const newer = changeBatch(customers, 1000 + round, 3000 + round, 11 + 2 * round);
      const loadOlder = (): Promise<ApplyOutcome> => fixture.load(older, [`U,1,older ${round}\n`], options);
      const loadNewer = (): Promise<ApplyOutcome> => fixture.load(newer, [`U,1,newer ${round}\n`], options, second);
      // Odd rounds start the newer load first, so that the older one usually meets the raised fence.
      let olderOutcome: ApplyOutcome;
      let newerOutcome: ApplyOutcome;
      if (round % 2 === 0) [olderOutcome, newerOutcome] = await Promise.all([loadOlder(), loadNewer()]);
      else [newerOutcome, olderOutcome] = await Promise.all([loadNewer(), loadOlder()]);
      expect(newerOutcome).toEqual({ applied: true, rowCount: 1 });
      expect(olderOutcome.applied || olderOutcome.stale === true).toBe(true);
      expect(await current(schema, 'Type1')).toBe(`1,newer ${round}\n2,Bob\n`);
    }
  });

  it('Type1: keeps one fence per replication', async () => {
    const { schema, options } = await seeded('Type1');
    await fixture.load(changeBatch(customers, 100, 200, 9), ['U,1,Ann 9\n'], options);
    const other = { ...changeBatch(customers, 1, 2, 0), batchId: 'other:1:2', replicationId: 'r2' };
    expect(await fixture.warehouse.isStale(other, options)).toBe(false);
    expect(await fixture.load(other, ['U,2,Bob 0\n'], options)).toEqual({ applied: true, rowCount: 1 });
    expect(await current(schema, 'Type1')).toBe('1,Ann 9\n2,Bob 0\n');
  });
});

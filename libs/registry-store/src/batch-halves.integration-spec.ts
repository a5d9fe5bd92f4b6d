import { Pool } from 'pg';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { BatchHalvesRepository } from './batch-halves-repository';
import { migrate } from './migrate';

/**
 * A batch staging and the warehouse apply at once is complete when both halves are in (migration 18): whichever comes
 * second finds the first, also when both arrive at the same moment from two registry instances.
 */
describe('BatchHalvesRepository against PostgreSQL', () => {
  let database: TempDatabase;
  let pools: Pool[];
  let halves: BatchHalvesRepository[];

  beforeAll(async () => {
    database = await createTempDatabase('svc_batch_halves_it');
    // Two registry instances: a pool each.
    pools = [new Pool({ connectionString: database.url, max: 8 }), new Pool({ connectionString: database.url, max: 8 })];
    await migrate(pools[0]);
    halves = pools.map((pool) => new BatchHalvesRepository(pool));
  });

  afterAll(async () => {
    await Promise.all((pools ?? []).map((pool) => pool.end()));
    await database?.drop();
  });

  const report = { workId: 'w', batchId: 'b', note: 'the loader report' };

  it('completes with the loader\'s report whichever half comes second', async () => {
    const [one] = halves;
    expect(await one.loaded({ workId: 'w1', batchId: 'b', epoch: 1 }, report)).toBe(false);
    expect(await one.stagingApplied({ workId: 'w1', batchId: 'b', epoch: 1 })).toEqual(report);
    expect(await one.stagingApplied({ workId: 'w2', batchId: 'b', epoch: 1 })).toBeNull();
    expect(await one.loaded({ workId: 'w2', batchId: 'b', epoch: 1 }, report)).toBe(true);
  });

  it('keeps halves of different attempts apart, and forgets a completed batch', async () => {
    const [one] = halves;
    await one.loaded({ workId: 'w3', batchId: 'b', epoch: 1 }, report);
    expect(await one.stagingApplied({ workId: 'w3', batchId: 'b', epoch: 2 })).toBeNull();
    await one.forget({ workId: 'w3', batchId: 'b', epoch: 1 });
    expect(await one.stagingApplied({ workId: 'w3', batchId: 'b', epoch: 1 })).toBeNull();
    const { rows } = await pools[0].query<{ n: number }>(`SELECT count(*)::int AS n FROM batch_halves WHERE work_id = 'w3'`);
    expect(rows[0]?.n).toBe(2);
  });

  it('finds both halves exactly once for each of 200 batches whose halves arrive at once on two instances', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const key = { workId: `race-${index}`, batchId: 'b', epoch: 7 };
        const [loaded, staged] = await Promise.all([halves[index % 2].loaded(key, report), halves[(index + 1) % 2].stagingApplied(key)]);
        return Number(loaded) + Number(staged !== null);
      }),
    );
    expect(outcomes.filter((found) => found !== 1)).toEqual([]);
  });
});

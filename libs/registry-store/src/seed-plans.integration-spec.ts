import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@svc/crypto';
import { createTempDatabase, sampleReplicationConfig, type TempDatabase } from '@svc/testing';
import { migrate } from './migrate';
import { PipelineStateRepository } from './pipeline-state-repository';
import { ReplicationRepository } from './replication-repository';
import { SeedPlanRepository, type SeedPlan } from './seed-plan-repository';

const TABLE = '[public].[big]';
const T0 = new Date(Date.UTC(2030, 0, 10, 12, 0, 0));
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const plan = (seedId: string, chunks = 3): SeedPlan => ({
  seedId,
  startVersion: '100',
  sourceIncarnation: 'fork F1',
  keyColumns: ['id'],
  bounds: Array.from({ length: chunks - 1 }, (_, index) => [String((index + 1) * 1000)]),
  chunkCount: chunks,
});

/**
 * A chunked seed's plan in the control database (migration 17): kept once per table while its work is in flight,
 * outliving the work (a seed resumed keeps it and its chunks loaded), released work once every chunk is in, and gone
 * with the seed's completion or a reseed.
 */
describe('SeedPlanRepository against PostgreSQL', () => {
  let database: TempDatabase;
  let pool: Pool;
  let replications: ReplicationRepository;
  let state: PipelineStateRepository;
  let plans: SeedPlanRepository;

  beforeAll(async () => {
    database = await createTempDatabase('svc_seed_plans_it');
    pool = new Pool({ connectionString: database.url, max: 4 });
    await migrate(pool);
    replications = new ReplicationRepository(pool, new SecretBox(randomBytes(32)));
    state = new PipelineStateRepository(pool);
    plans = new SeedPlanRepository(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  /** A replication whose table has a seed in flight: its id, the work and the work's epoch. */
  async function seeding(): Promise<{ replicationId: string; work: { workId: string; epoch: number } }> {
    const { replicationId } = await replications.insert({ status: 'Running', config: sampleReplicationConfig() }, { requestId: 'r', accessKeyId: 'SVCTESTKEY' });
    await state.registerTables(replicationId, 1, [{ tableName: TABLE, tracked: true, rowsEstimated: 10 }]);
    const workId = randomUUID();
    const epoch = await state.claim(replicationId, TABLE, workId, 'seed', at(0));
    if (epoch === null) throw new Error('claim refused');
    return { replicationId, work: { workId, epoch } };
  }

  it('keeps the first plan offered while the work is in flight at its epoch; a later offer gets the kept one', async () => {
    const { replicationId, work } = await seeding();
    expect(await plans.keep(replicationId, TABLE, { ...work, epoch: work.epoch + 1 }, plan('late'))).toBeNull();
    expect(await plans.keep(replicationId, TABLE, work, plan('first'))).toMatchObject({ seedId: 'first', chunkCount: 3, bounds: [['1000'], ['2000']] });
    expect(await plans.keep(replicationId, TABLE, work, plan('second'))).toMatchObject({ seedId: 'first' });
  });

  it('records chunks of the work in flight only, releases the work once every chunk is in, and resumes with them after a new claim', async () => {
    const { replicationId, work } = await seeding();
    await plans.keep(replicationId, TABLE, work, plan('s1'));
    expect(await plans.chunkLoaded(replicationId, TABLE, { ...work, epoch: work.epoch - 1 }, 's1', 0, 10, at(1))).toBe('ignored');
    expect(await plans.chunkLoaded(replicationId, TABLE, work, 'other', 0, 10, at(1))).toBe('ignored');
    expect(await plans.chunkLoaded(replicationId, TABLE, work, 's1', 0, 10, at(1))).toBe('recorded');
    expect(await plans.chunkLoaded(replicationId, TABLE, work, 's1', 0, 10, at(1))).toBe('recorded');
    expect(await plans.chunkLoaded(replicationId, TABLE, work, 's1', 2, 30, at(2))).toBe('recorded');
    // The work is released (a worker died): the plan stays, with its chunks; a new claim counts their rows.
    expect(await state.releaseWork(replicationId, TABLE, work.workId, 'lost', at(3))).toBe(true);
    expect((await plans.planOf(replicationId, TABLE))?.loaded).toEqual(new Set([0, 2]));
    const resumed = { workId: randomUUID(), epoch: 0 };
    resumed.epoch = (await state.claim(replicationId, TABLE, resumed.workId, 'seed', at(4))) ?? 0;
    expect(await plans.chunkLoaded(replicationId, TABLE, resumed, 's1', 1, 20, at(5))).toBe('complete');
    const [table] = await state.listTables([replicationId]);
    expect(table).toMatchObject({ inFlightWorkId: null, seedPlan: { seedId: 's1', startVersion: '100', sourceIncarnation: 'fork F1', chunkCount: 3, chunksLoaded: 3 } });
    expect((await pool.query<{ rows_seeded: string }>('select rows_seeded from table_states where replication_id = $1', [replicationId])).rows[0]?.rows_seeded).toBe('60');
  });

  it('goes with the seed it planned: at completion, at a reseed asked for, at a failure that reseeds; not at one that retries', async () => {
    const completed = await seeding();
    await plans.keep(completed.replicationId, TABLE, completed.work, plan('done'));
    expect(await state.completeSeed(completed.replicationId, TABLE, completed.work, '180', 0, at(1))).toBe(true);
    expect(await plans.planOf(completed.replicationId, TABLE)).toBeNull();

    const retried = await seeding();
    await plans.keep(retried.replicationId, TABLE, retried.work, plan('kept'));
    const retry = { message: 'busy', event: 'failed-retryable' as const, retryAt: at(60) };
    expect(await state.failWork(retried.replicationId, TABLE, retried.work, retry, at(1))).toBe(true);
    expect((await plans.planOf(retried.replicationId, TABLE))?.plan.seedId).toBe('kept');
    await state.reseedAll(retried.replicationId, 'asked', at(2));
    expect(await plans.planOf(retried.replicationId, TABLE)).toBeNull();

    const reseeded = await seeding();
    await plans.keep(reseeded.replicationId, TABLE, reseeded.work, plan('purged'));
    const purge = { message: 'horizon purged', event: 'failed-reseed' as const, retryAt: null };
    expect(await state.failWork(reseeded.replicationId, TABLE, reseeded.work, purge, at(1))).toBe(true);
    expect(await plans.planOf(reseeded.replicationId, TABLE)).toBeNull();
  });
});

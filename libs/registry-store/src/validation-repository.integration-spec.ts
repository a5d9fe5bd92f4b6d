import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { reserveTempDatabase } from '@svc/testing';
import { ensureDatabase } from './ensure-database';
import { migrate } from './migrate';
import { ValidationRepository, type ValidationOutcome } from './validation-repository';

const database = reserveTempDatabase('svc_validations_test');
const ORDERS = '[dbo].[Orders]';
const LINES = '[dbo].[Lines]';
const AUDIT = '[dbo].[Audit]';

const outcome = (overrides: Partial<ValidationOutcome> = {}): ValidationOutcome => ({
  state: 'Validated',
  reason: null,
  sourceVersion: '812',
  rowsCompared: 3000,
  rowsEstimated: 3000,
  missingKeys: 0,
  extraKeys: 0,
  differentKeys: 0,
  unsettledKeys: 0,
  differingKeys: [],
  ...overrides,
});

describe('validations against PostgreSQL', () => {
  let pool: Pool;
  let validations: ValidationRepository;

  beforeAll(async () => {
    await ensureDatabase(database.url);
    pool = new Pool({ connectionString: database.url, max: 4 });
    await migrate(pool);
    validations = new ValidationRepository(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database.drop();
  });

  async function newReplication(): Promise<string> {
    const result = await pool.query<{ id: string }>(
      `INSERT INTO replications (name, status, config, secrets) VALUES ($1, 'Running', '{}'::jsonb, '\\x00'::bytea) RETURNING id`,
      [`validations-${randomUUID()}`],
    );
    return result.rows[0]?.id ?? '';
  }

  it('stores a validation per table, dispatches Pending tables up to a limit, and keeps only the current work\'s reports', async () => {
    const replicationId = await newReplication();
    const validationId = randomUUID();
    const at = new Date('2026-11-27T10:00:00Z');
    await validations.create(validationId, replicationId, [
      { tableName: ORDERS, state: 'Pending', reason: null },
      { tableName: LINES, state: 'Pending', reason: null },
      { tableName: AUDIT, state: 'Skipped', reason: 'its phase is Seeding' },
    ], at, false);
    expect(await validations.openByReplication()).toContainEqual({ replicationId, pending: 2, running: 0 });

    const [first, ...rest] = await validations.dispatch(replicationId, 1, randomUUID, at);
    expect(rest).toEqual([]);
    expect(first?.tableName).toBe(LINES);
    if (!first) throw new Error('nothing dispatched');
    expect(await validations.openByReplication()).toContainEqual({ replicationId, pending: 1, running: 1 });

    const progress = { phase: 'source' as const, rowsCompared: 10, rowsEstimated: 3000, sourceVersion: '812' };
    expect(await validations.recordProgress(validationId, LINES, randomUUID(), progress, at)).toBe(false);
    expect(await validations.recordProgress(validationId, LINES, first.workId, progress, at)).toBe(true);
    const mismatch = outcome({ state: 'Mismatched', missingKeys: 1, differingKeys: [{ key: { id: '7' }, difference: 'missing' }] });
    expect(await validations.finish(validationId, LINES, randomUUID(), mismatch, at)).toBe(false);
    expect(await validations.finish(validationId, LINES, first.workId, mismatch, new Date('2026-11-27T10:01:00Z'))).toBe(true);
    // A second report of the same work (a redelivery) changes nothing: the table is no longer Running.
    expect(await validations.finish(validationId, LINES, first.workId, outcome(), at)).toBe(false);

    const described = await validations.describe(replicationId);
    expect(described).toMatchObject({ replicationId, validationId, scheduled: false, requestedAt: at.toISOString() });
    expect(described?.tables).toEqual([
      expect.objectContaining({ name: AUDIT, state: 'Skipped', reason: 'its phase is Seeding', endedAt: at.toISOString() }),
      expect.objectContaining({
        name: LINES,
        state: 'Mismatched',
        mismatchedKeys: 1,
        missingKeys: 1,
        differingKeys: [{ key: { id: '7' }, difference: 'missing' }],
        startedAt: at.toISOString(),
        endedAt: '2026-11-27T10:01:00.000Z',
      }),
      expect.objectContaining({ name: ORDERS, state: 'Pending', startedAt: null }),
    ]);
  });

  it('starts a scheduled validation once however many registries ask at once, and none while one is open or one was requested since', async () => {
    const replicationId = await newReplication();
    const at = new Date('2026-11-27T10:00:00Z');
    const tables = [{ tableName: ORDERS, state: 'Pending' as const, reason: null }];
    const hourBefore = new Date(at.getTime() - 3600_000);
    const attempts = await Promise.all([1, 2, 3, 4].map(() => validations.createScheduled(randomUUID(), replicationId, tables, at, hourBefore)));
    expect(attempts.filter(Boolean)).toHaveLength(1);
    expect(await validations.describe(replicationId)).toMatchObject({ scheduled: true, tables: [{ name: ORDERS, state: 'Pending' }] });

    // Finished, but requested after `notSince`: not yet.
    const open = await validations.describe(replicationId);
    const [work] = await validations.dispatch(replicationId, 1, randomUUID, at);
    await validations.finish(open?.validationId ?? '', ORDERS, work?.workId ?? null, outcome(), at);
    expect(await validations.createScheduled(randomUUID(), replicationId, tables, new Date(at.getTime() + 60_000), hourBefore)).toBe(false);
    // An hour later it is due again; a validation still open (requested long ago) holds it back.
    const later = new Date(at.getTime() + 2 * 3600_000);
    const sinceLater = new Date(later.getTime() - 3600_000);
    await validations.create(randomUUID(), replicationId, tables, new Date(at.getTime() - 24 * 3600_000), false);
    expect(await validations.createScheduled(randomUUID(), replicationId, tables, later, sinceLater)).toBe(false);
    await validations.failOpen(replicationId, 'the replication was stopped', later);
    expect(await validations.createScheduled(randomUUID(), replicationId, tables, later, sinceLater)).toBe(true);
  });

  it('validates a table repaired by a reseed once that reseed has completed, once however many registries ask', async () => {
    const replicationId = await newReplication();
    const repairedAt = new Date('2026-11-27T12:00:00Z');
    const setState = (table: string, phase: string, seededAt: Date | null) =>
      pool.query(
        `INSERT INTO table_states (replication_id, table_name, phase, last_seeded_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (replication_id, table_name) DO UPDATE SET phase = $3, last_seeded_at = $4`,
        [replicationId, table, phase, seededAt],
      );
    await setState(ORDERS, 'Reseeding', new Date('2026-11-27T08:00:00Z'));
    await setState(LINES, 'Tracking', new Date('2026-11-27T08:00:00Z'));
    const repairId = randomUUID();
    await validations.create(repairId, replicationId, [
      { tableName: ORDERS, state: 'Pending', reason: null },
      { tableName: LINES, state: 'Pending', reason: null },
      { tableName: AUDIT, state: 'Pending', reason: null },
    ], repairedAt, false);
    await validations.revalidateAfterReseed(repairId, ORDERS, repairedAt);
    // A table that left the replication since: its mark is dropped without a validation.
    await validations.revalidateAfterReseed(repairId, AUDIT, repairedAt);
    const ofThis = async (at: Date) => (await validations.startRevalidations(randomUUID, at)).filter((started) => started.replicationId === replicationId);

    // Still reseeding, then Tracking again but from a seed older than the repair: not yet.
    expect(await ofThis(new Date('2026-11-27T12:00:05Z'))).toEqual([]);
    await setState(ORDERS, 'Tracking', new Date('2026-11-27T08:00:00Z'));
    expect(await ofThis(new Date('2026-11-27T12:00:06Z'))).toEqual([]);
    await setState(ORDERS, 'Tracking', new Date('2026-11-27T12:03:00Z'));
    const attempts = await Promise.all([1, 2, 3].map(() => ofThis(new Date('2026-11-27T12:03:01Z'))));
    const started = attempts.flat();
    expect(started.map((entry) => ({ replicationId: entry.replicationId, tables: entry.tables }))).toEqual([{ replicationId, tables: [ORDERS] }]);
    expect(await validations.describe(replicationId)).toMatchObject({ validationId: started[0]?.validationId, scheduled: true, tables: [{ name: ORDERS, state: 'Pending' }] });
    expect(await ofThis(new Date('2026-11-27T12:04:00Z'))).toEqual([]);
  });

  it('puts a silent table back to Pending once, by its work id, and describes the latest validation when none is named', async () => {
    const replicationId = await newReplication();
    const older = randomUUID();
    const newer = randomUUID();
    await validations.create(older, replicationId, [{ tableName: ORDERS, state: 'Pending', reason: null }], new Date('2026-11-27T09:00:00Z'), false);
    await validations.create(newer, replicationId, [{ tableName: ORDERS, state: 'Pending', reason: null }], new Date('2026-11-27T09:30:00Z'), true);
    const [dispatched] = await validations.dispatch(replicationId, 5, randomUUID, new Date('2026-11-27T09:31:00Z'));
    expect(dispatched?.validationId).toBe(older);
    if (!dispatched) throw new Error('nothing dispatched');
    const stalled = await validations.stalled(new Date('2026-11-27T09:40:00Z'));
    expect(stalled).toContainEqual({ ...dispatched, dispatches: 1 });
    expect(await validations.requeue(older, ORDERS, dispatched.workId)).toBe(true);
    expect(await validations.requeue(older, ORDERS, dispatched.workId)).toBe(false);
    expect((await validations.describe(replicationId))?.validationId).toBe(newer);
    expect((await validations.describe(replicationId, older))?.tables[0]?.state).toBe('Pending');
    expect(await validations.describe(replicationId, randomUUID())).toBeNull();
    expect(await validations.failOpen(replicationId, 'the replication was deleted', new Date())).toBe(2);
  });

  it('queues a Mismatched table for repair, dispatched as Repairing, and leaves the others', async () => {
    const replicationId = await newReplication();
    const validationId = randomUUID();
    const at = new Date('2026-11-27T11:00:00Z');
    await validations.create(validationId, replicationId, [
      { tableName: ORDERS, state: 'Pending', reason: null },
      { tableName: LINES, state: 'Pending', reason: null },
    ], at, false);
    for (const work of await validations.dispatch(replicationId, 5, randomUUID, at)) {
      const state = work.tableName === ORDERS ? 'Mismatched' : 'Validated';
      await validations.finish(validationId, work.tableName, work.workId, outcome({ state, differentKeys: state === 'Mismatched' ? 3 : 0 }), at);
    }
    expect(await validations.requestRepair(validationId, [ORDERS, LINES], at)).toEqual([ORDERS]);
    const [repairing, ...others] = await validations.dispatch(replicationId, 5, randomUUID, at);
    expect(others).toEqual([]);
    expect(repairing).toMatchObject({ tableName: ORDERS, repair: true });
    expect((await validations.describe(replicationId, validationId))?.tables.map((table) => [table.name, table.state])).toEqual([
      [LINES, 'Validated'],
      [ORDERS, 'Repairing'],
    ]);
    if (!repairing) throw new Error('nothing dispatched');
    expect(await validations.finish(validationId, ORDERS, repairing.workId, outcome({ state: 'Repaired', reason: '3 key(s) applied again' }), at)).toBe(true);
    expect((await validations.describe(replicationId, validationId))?.tables.find((table) => table.name === ORDERS)).toMatchObject({ state: 'Repaired', differentKeys: 0 });
    const last = (await validations.lastByTable(replicationId)).get(replicationId);
    expect([...(last?.entries() ?? [])].map(([name, entry]) => [name, entry.state, entry.validationId])).toEqual(
      expect.arrayContaining([
        [ORDERS, 'Repaired', validationId],
        [LINES, 'Validated', validationId],
      ]),
    );
    expect([...(await validations.lastByTable(replicationId)).keys()]).toEqual([replicationId]);
  });
});

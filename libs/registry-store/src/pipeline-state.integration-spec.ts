import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { SecretBox } from '@svc/crypto';
import { createTempDatabase, sampleReplicationConfig, type TempDatabase } from '@svc/testing';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { TABLE_EVENTS, TABLE_PHASES, transition, type TableEvent, type TableFacts, type TablePhase } from '@svc/contracts';
import { PipelineStateRepository, type TableRuntimeState } from './pipeline-state-repository';
import { ReplicationRepository } from './replication-repository';
import { phaseAfter, phaseAllows } from './table-phase-sql';

const config = sampleReplicationConfig();
const author = { requestId: 'req-1', accessKeyId: 'SVCTESTKEY' };
const T0 = new Date(Date.UTC(2030, 0, 10, 12, 0, 0));
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('PipelineStateRepository against PostgreSQL', () => {
  let database: TempDatabase;
  let pool: Pool;
  let replications: ReplicationRepository;
  let state: PipelineStateRepository;

  beforeAll(async () => {
    database = await createTempDatabase('svc_pipeline_state_it');
    pool = new Pool({ connectionString: database.url, max: 4 });
    await migrate(pool);
    replications = new ReplicationRepository(pool, new SecretBox(randomBytes(32)));
    state = new PipelineStateRepository(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  /** A replication with the given tables registered (Pending); tracked unless named in `untracked`. */
  async function replicationWith(tables: string[], untracked: string[] = []): Promise<string> {
    const { replicationId } = await replications.insert({ status: 'Running', config }, author);
    await state.registerTables(
      replicationId,
      1,
      tables.map((tableName) => ({ tableName, tracked: !untracked.includes(tableName), rowsEstimated: 10 })),
    );
    return replicationId;
  }

  async function tableState(replicationId: string, tableName: string): Promise<TableRuntimeState> {
    const found = (await state.listTables([replicationId])).find((table) => table.tableName === tableName);
    if (!found) throw new Error(`no state for ${tableName}`);
    return found;
  }

  /** Claims a seed and completes it at `version`: the table is Tracking (or Untracked) with nothing in flight. */
  async function seeded(replicationId: string, tableName: string, version: string, now: Date): Promise<void> {
    const workId = randomUUID();
    expect(await state.claim(replicationId, tableName, workId, 'seed', now)).not.toBeNull();
    expect(await state.completeSeed(replicationId, tableName, workId, version, 10, now)).toBe(true);
  }

  /** Claims a change cycle and returns its work id. */
  async function claimChanges(replicationId: string, tableName: string, now: Date): Promise<string> {
    const workId = randomUUID();
    expect(await state.claim(replicationId, tableName, workId, 'changes', now)).not.toBeNull();
    return workId;
  }

  it('registers discovered tables as Pending and records the discovered configuration version', async () => {
    const id = await replicationWith(['[public].[a]', '[public].[b]'], ['[public].[b]']);
    const [listed] = (await state.listReplications()).filter((replication) => replication.replicationId === id);
    expect(listed).toMatchObject({ status: 'Running', configVersion: 1, discoveredConfigVersion: 1 });
    expect(JSON.stringify(listed?.config)).not.toContain('pw@');
    expect(await state.listTables([id])).toEqual([
      expect.objectContaining({ tableName: '[public].[a]', phase: 'Pending', tracked: true, workEpoch: 0, ctTimeoutLevel: 0 }),
      expect.objectContaining({ tableName: '[public].[b]', phase: 'Pending', tracked: false, workEpoch: 0, ctTimeoutLevel: 0 }),
    ]);
  });

  it('claims strictly increasing epochs per table, and nothing while work is in flight', async () => {
    const id = await replicationWith(['[public].[a]', '[public].[b]']);
    const first = randomUUID();
    expect(await state.claim(id, '[public].[a]', first, 'seed', at(0))).toBe(1);
    expect(await state.claim(id, '[public].[a]', randomUUID(), 'seed', at(1))).toBeNull();
    expect(await tableState(id, '[public].[a]')).toMatchObject({ phase: 'Seeding', inFlightWorkId: first, inFlightKind: 'seed', inFlightSince: at(0), workEpoch: 1 });
    // Another table of the same replication counts its own epochs.
    expect(await state.claim(id, '[public].[b]', randomUUID(), 'seed', at(1))).toBe(1);

    expect(await state.releaseWork(id, '[public].[a]', first, 'retried', at(2))).toBe(true);
    const second = randomUUID();
    expect(await state.claim(id, '[public].[a]', second, 'seed', at(3))).toBe(2);
    expect(await state.completeSeed(id, '[public].[a]', second, '100', 5, at(4))).toBe(true);
    expect(await state.claim(id, '[public].[a]', randomUUID(), 'changes', at(5))).toBe(3);
    expect(await tableState(id, '[public].[a]')).toMatchObject({ phase: 'Tracking', inFlightKind: 'changes', workEpoch: 3 });
  });

  it('claims a group\'s change cycles in one statement, each with its own work, stored message and next epoch, leaving out a table in flight (issue 39)', async () => {
    const tables = ['[public].[a]', '[public].[b]', '[public].[c]', '[public].[d]'];
    const id = await replicationWith(tables);
    for (const table of tables) await seeded(id, table, '100', at(0));
    const busy = await claimChanges(id, '[public].[c]', at(1));
    const groupId = randomUUID();
    const members = tables.map((tableName) => ({ tableName, workId: randomUUID(), request: { table: tableName } }));

    const epochs = await state.claimChanges(id, members, at(2), 1, groupId);

    expect([...epochs.entries()].sort()).toEqual([['[public].[a]', 2], ['[public].[b]', 2], ['[public].[d]', 2]]);
    for (const member of members.filter((one) => one.tableName !== '[public].[c]')) {
      expect(await tableState(id, member.tableName)).toMatchObject({ inFlightWorkId: member.workId, inFlightKind: 'changes', inFlightGroupId: groupId, inFlightPublishedAt: null, workEpoch: 2 });
    }
    expect(await tableState(id, '[public].[c]')).toMatchObject({ inFlightWorkId: busy, inFlightGroupId: null });
    const stored = (await state.unpublishedWork()).find((work) => work.workId === members[0]?.workId);
    expect(stored?.request).toEqual({ table: '[public].[a]', epoch: 2 });
    // Planned under a configuration an Alter replaced: nothing is claimed.
    expect((await state.claimChanges(id, [{ tableName: '[public].[c]', workId: randomUUID(), request: {} }], at(3), 7, randomUUID())).size).toBe(0);
  });

  it('refuses a claim planned under a configuration an Alter has replaced, and takes it under the new one', async () => {
    const table = '[public].[t]';
    const id = await replicationWith([table]);
    await seeded(id, table, '100', at(0));
    // The scheduler listed the replication at version 1; an Alter (SchemaReplication on) then stored version 2 and asked for a reseed.
    const altered = await replications.update(id, 1, { config: { ...config, schemaReplication: true }, status: 'Running', lastError: null, changedFields: ['schemaReplication'] }, author);
    expect(altered?.version).toBe(2);
    await state.reseedAll(id, 'SchemaReplication was turned on', at(10));

    expect(await state.claim(id, table, randomUUID(), 'seed', at(11), { configVersion: 1 }, 1)).toBeNull();
    expect(await tableState(id, table)).toMatchObject({ phase: 'Reseeding', inFlightWorkId: null });
    expect(await state.claim(id, table, randomUUID(), 'seed', at(12), { configVersion: 2 }, 2)).not.toBeNull();
  });

  it('walks the CtProcessTimeoutInMinutes levels 1, 2, 3, stays at 3, and returns to 0 after a completed cycle', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));

    let second = 10;
    for (const expectedLevel of [1, 2, 3, 3]) {
      const workId = await claimChanges(id, table, at(second));
      expect(await state.cancelWork(id, table, workId, `cancelled to level ${String(expectedLevel)}`, at(second + 60))).toBe(true);
      expect(await tableState(id, table)).toMatchObject({
        phase: 'Tracking',
        ctTimeoutLevel: expectedLevel,
        inFlightWorkId: null,
        lastVersion: '100',
        lastError: `cancelled to level ${String(expectedLevel)}`,
        lastCycleAt: at(second + 60),
      });
      second += 100;
    }

    const workId = await claimChanges(id, table, at(second));
    expect(await state.completeChanges(id, table, workId, '180', 7, 1.5, at(second + 30))).toEqual({ fromVersion: '100', startedAt: at(second) });
    expect(await tableState(id, table)).toMatchObject({
      ctTimeoutLevel: 0,
      lastVersion: '180',
      lastCycleRows: 7,
      lastCycleAt: at(second + 30),
      watermarkAt: at(second + 30),
      lastError: null,
      inFlightWorkId: null,
    });
  });

  it('moves the watermark batch by batch through a work of several change batches, keeping the work in flight until its last', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));
    const workId = await claimChanges(id, table, at(10));

    expect(await state.recordChangesProgress(id, table, workId, { fromVersion: '100', toVersion: '150' }, 5, 2, at(20))).toEqual({ fromVersion: '100', startedAt: at(10) });
    // The next batch's cycle starts now: its timeout counts from here.
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '150', lastCycleRows: 5, inFlightWorkId: workId, inFlightSince: at(20), watermarkAt: at(20) });

    // A batch whose predecessor's progress is not recorded (a redelivery out of order), or an older one again, moves nothing.
    const before = await tableState(id, table);
    expect(await state.recordChangesProgress(id, table, workId, { fromVersion: '170', toVersion: '190' }, 1, 0, at(30))).toBeNull();
    expect(await state.recordChangesProgress(id, table, workId, { fromVersion: '100', toVersion: '150' }, 5, 0, at(30))).toBeNull();
    expect(await state.recordChangesProgress(id, table, randomUUID(), { fromVersion: '150', toVersion: '170' }, 1, 0, at(30))).toBeNull();
    expect(await tableState(id, table)).toEqual(before);

    expect(await state.recordChangesProgress(id, table, workId, { fromVersion: '150', toVersion: '170' }, 3, 1, at(40))).not.toBeNull();
    expect(await state.completeChanges(id, table, workId, '190', 1, 0.5, at(50))).toEqual({ fromVersion: '170', startedAt: at(40) });
    expect(await tableState(id, table)).toMatchObject({ phase: 'Tracking', lastVersion: '190', inFlightWorkId: null });
  });

  it('stores the source incarnation with every watermark, keeps it when a batch could not say, and forgets it with the watermark', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    const seed = randomUUID();
    expect(await state.claim(id, table, seed, 'seed', at(0))).not.toBeNull();
    expect(await state.completeSeed(id, table, seed, '100', 10, at(1), 'cluster A timeline 1')).toBe(true);
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '100', lastIncarnation: 'cluster A timeline 1' });

    const cycle = await claimChanges(id, table, at(10));
    await state.recordChangesProgress(id, table, cycle, { fromVersion: '100', toVersion: '150', incarnation: 'cluster A timeline 2' }, 5, 0, at(11));
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '150', lastIncarnation: 'cluster A timeline 2' });
    // A batch whose source could not say its incarnation (a login that may not read it) keeps the one stored.
    await state.completeChanges(id, table, cycle, '170', 1, 0, at(12));
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '170', lastIncarnation: 'cluster A timeline 2' });

    const failing = await claimChanges(id, table, at(20));
    await state.failWork(id, table, failing, { message: 'restored', event: 'failed-reseed', retryAt: null }, at(21));
    expect(await tableState(id, table)).toMatchObject({ lastVersion: null, lastIncarnation: null });
    await seeded(id, table, '300', at(30));
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '300', lastIncarnation: null });
    await state.reseedAll(id, 'asked', at(40));
    expect(await tableState(id, table)).toMatchObject({ lastVersion: null, lastIncarnation: null });
  });

  it('gives a work delivered again a new attempt with a higher epoch; only the latest attempt\'s reports move the table', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));
    const workId = randomUUID();
    const claimed = await state.claim(id, table, workId, 'changes', at(10));
    if (claimed === null) throw new Error('not claimed');
    const second = await state.newAttempt(id, table, workId, at(11));
    expect(second).toBe(claimed + 1);
    expect((await tableState(id, table)).workEpoch).toBe(claimed + 1);

    // The first attempt, still reading when the request came again, reports a window the second does not own.
    expect(await state.recordChangesProgress(id, table, { workId, epoch: claimed }, { fromVersion: '100', toVersion: '140' }, 3, 0, at(12))).toBeNull();
    expect(await state.completeChanges(id, table, { workId, epoch: claimed }, '140', 3, 0, at(12))).toBeNull();
    expect(await state.failWork(id, table, { workId, epoch: claimed }, { message: 'late', event: 'failed-retryable', retryAt: at(60) }, at(12))).toBe(false);
    // Nor do its heartbeats keep the work alive; the latest attempt's do, as do those that name no epoch.
    expect(await state.recordProgress(id, table, { workId, epoch: claimed }, at(12))).toBe(false);
    expect(await state.recordProgress(id, table, { workId, epoch: claimed + 1 }, at(12))).toBe(true);
    expect(await state.recordProgress(id, table, workId, at(12))).toBe(true);
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '100', inFlightWorkId: workId });

    expect(await state.completeChanges(id, table, { workId, epoch: second ?? 0 }, '150', 4, 0, at(13))).not.toBeNull();
    expect(await tableState(id, table)).toMatchObject({ lastVersion: '150', inFlightWorkId: null });
    // No attempt of a work no longer in flight.
    expect(await state.newAttempt(id, table, workId, at(14))).toBeNull();
  });

  it('ignores a completion, failure or cancel of work no longer in flight', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));
    const cancelled = await claimChanges(id, table, at(10));
    expect(await state.cancelWork(id, table, cancelled, 'timed out', at(100))).toBe(true);
    const released = await claimChanges(id, table, at(110));
    expect(await state.releaseWork(id, table, released, 'lost', at(120))).toBe(true);
    const current = await claimChanges(id, table, at(130));
    const before = await tableState(id, table);

    for (const stale of [cancelled, released, randomUUID()]) {
      expect(await state.completeChanges(id, table, stale, '999', 1, 0, at(140))).toBeNull();
      expect(await state.completeSeed(id, table, stale, '999', 1, at(140))).toBe(false);
      expect(await state.recordSeedProgress(id, table, stale, 1, at(140))).toBe(false);
      expect(await state.failWork(id, table, stale, { message: 'late', event: 'failed-terminal', retryAt: at(200) }, at(140))).toBe(false);
      expect(await state.cancelWork(id, table, stale, 'late', at(140))).toBe(false);
      expect(await state.releaseWork(id, table, stale, 'late', at(140))).toBe(false);
    }
    expect(await tableState(id, table)).toEqual(before);
    expect(before).toMatchObject({ inFlightWorkId: current, lastVersion: '100', ctTimeoutLevel: 1, workEpoch: 4 });
  });

  it('counts retryable failures with their retry time; a completed cycle or seed resets them', async () => {
    const id = await replicationWith(['[public].[t]', '[public].[s]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));

    const first = await claimChanges(id, table, at(10));
    expect(await state.failWork(id, table, first, { message: 'connection refused', event: 'failed-retryable', retryAt: at(15) }, at(11))).toBe(true);
    expect(await tableState(id, table)).toMatchObject({ phase: 'Tracking', failureCount: 1, retryAt: at(15), lastError: 'connection refused', inFlightWorkId: null, lastCycleAt: at(11) });
    const second = await claimChanges(id, table, at(20));
    expect(await state.failWork(id, table, second, { message: 'deadlock detected', event: 'failed-retryable', retryAt: at(30) }, at(21))).toBe(true);
    expect(await state.failureCount(id, table)).toBe(2);
    expect(await tableState(id, table)).toMatchObject({ failureCount: 2, retryAt: at(30), lastError: 'deadlock detected' });

    const third = await claimChanges(id, table, at(40));
    expect(await state.completeChanges(id, table, third, '120', 0, 0, at(41))).not.toBeNull();
    expect(await tableState(id, table)).toMatchObject({ failureCount: 0, retryAt: null, lastError: null, lastVersion: '120' });

    // A seed: failures during it, then the completed seed clears them.
    const seedTable = '[public].[s]';
    const seedWork = randomUUID();
    await state.claim(id, seedTable, seedWork, 'seed', at(50));
    expect(await state.failWork(id, seedTable, seedWork, { message: 'throttled', event: 'failed-retryable', retryAt: at(60) }, at(51))).toBe(true);
    expect(await tableState(id, seedTable)).toMatchObject({ phase: 'Seeding', failureCount: 1, retryAt: at(60) });
    await seeded(id, seedTable, '300', at(61));
    expect(await tableState(id, seedTable)).toMatchObject({ phase: 'Tracking', lastVersion: '300', failureCount: 0, retryAt: null, lastError: null });
  });

  it('puts a table in Error on a terminal failure without counting it as a retry', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));
    const workId = await claimChanges(id, table, at(10));
    expect(await state.failWork(id, table, workId, { message: 'relation "t" does not exist', event: 'failed-terminal', retryAt: null }, at(11))).toBe(true);
    expect(await tableState(id, table)).toMatchObject({ phase: 'Error', failureCount: 0, retryAt: null, lastError: 'relation "t" does not exist', inFlightWorkId: null });
  });

  it('resumes tables in Error to Tracking, Untracked or Pending and clears their backoff', async () => {
    const tracked = '[public].[tracked]';
    const seededOnly = '[public].[keyless]';
    const neverSeeded = '[public].[new]';
    const waiting = '[public].[waiting]';
    const id = await replicationWith([tracked, seededOnly, neverSeeded, waiting], [seededOnly]);
    await seeded(id, tracked, '100', at(0));
    await seeded(id, seededOnly, '0', at(0));
    await seeded(id, waiting, '100', at(0));
    for (const table of [tracked, seededOnly, neverSeeded]) {
      const workId = randomUUID();
      await state.claim(id, table, workId, table === tracked ? 'changes' : 'seed', at(10));
      expect(await state.failWork(id, table, workId, { message: 'terminal', event: 'failed-terminal', retryAt: null }, at(11))).toBe(true);
    }
    const retrying = await claimChanges(id, waiting, at(10));
    await state.failWork(id, waiting, retrying, { message: 'connection refused', event: 'failed-retryable', retryAt: at(500) }, at(11));
    expect((await state.listTables([id])).map((table) => [table.tableName, table.phase])).toEqual([
      [seededOnly, 'Error'],
      [neverSeeded, 'Error'],
      [tracked, 'Error'],
      [waiting, 'Tracking'],
    ]);

    expect(await state.resumeTables(id, at(20))).toBe(4);
    expect(await state.listTables([id])).toEqual([
      expect.objectContaining({ tableName: seededOnly, phase: 'Untracked', lastError: null }),
      expect.objectContaining({ tableName: neverSeeded, phase: 'Pending', lastError: null, retryAt: null, failureCount: 0 }),
      expect.objectContaining({ tableName: tracked, phase: 'Tracking', lastVersion: '100', lastError: null }),
      expect.objectContaining({ tableName: waiting, phase: 'Tracking', lastError: null, retryAt: null, failureCount: 0 }),
    ]);
    expect(await state.resumeTables(id, at(30))).toBe(0);
  });

  it('reseeds every table that is not Pending, returning and releasing the work in flight', async () => {
    const pending = '[public].[pending]';
    const busy = '[public].[busy]';
    const idle = '[public].[idle]';
    const id = await replicationWith([pending, busy, idle]);
    await seeded(id, busy, '100', at(0));
    await seeded(id, idle, '100', at(0));
    const inFlight = await claimChanges(id, busy, at(10));
    await state.cancelWork(id, busy, inFlight, 'timed out', at(100));
    const stillInFlight = await claimChanges(id, busy, at(110));

    const released = await state.reseedAll(id, 'ScdType changed', at(120));
    expect(released).toEqual([{ replicationId: id, tableName: busy, workId: stillInFlight }]);
    expect(await state.listTables([id])).toEqual([
      expect.objectContaining({ tableName: busy, phase: 'Reseeding', inFlightWorkId: null, ctTimeoutLevel: 0, lastError: 'ScdType changed' }),
      expect.objectContaining({ tableName: idle, phase: 'Reseeding', inFlightWorkId: null, lastError: 'ScdType changed' }),
      expect.objectContaining({ tableName: pending, phase: 'Pending', inFlightWorkId: null, lastError: 'ScdType changed' }),
    ]);
    // A reseed that fails for good and is retried by StartReplication seeds again: it does not resume tracking.
    const failing = randomUUID();
    await state.claim(id, idle, failing, 'seed', at(121));
    await state.failWork(id, idle, failing, { message: 'permission denied', event: 'failed-terminal', retryAt: null }, at(122));
    await state.resumeTables(id, at(123));
    expect(await tableState(id, idle)).toMatchObject({ phase: 'Pending', lastVersion: null });
    // The released cycle's late completion does not end the reseed.
    expect(await state.completeChanges(id, busy, stillInFlight, '150', 1, 0, at(130))).toBeNull();
    // A reseed's claim keeps the phase Reseeding, and its completion returns the table to Tracking.
    const reseed = randomUUID();
    expect(await state.claim(id, busy, reseed, 'seed', at(140))).toBe(4);
    expect(await tableState(id, busy)).toMatchObject({ phase: 'Reseeding' });
    expect(await state.completeSeed(id, busy, reseed, '160', 10, at(150))).toBe(true);
    expect(await tableState(id, busy)).toMatchObject({ phase: 'Tracking', lastVersion: '160' });
  });

  describe('the table phase machine (issue 22)', () => {
    const cells: { phase: TablePhase; facts: TableFacts }[] = TABLE_PHASES.flatMap((phase) =>
      [false, true].flatMap((tracked) =>
        [false, true].flatMap((hasWatermark) => [false, true].map((seeded) => ({ phase, facts: { tracked, hasWatermark, seeded } }))),
      ),
    );

    it.each([...TABLE_EVENTS])('the SQL generated for %s moves every phase and fact of a row as transition() does', async (event: TableEvent) => {
      const result = await pool.query<{ id: number; next: TablePhase; allowed: boolean }>(
        `SELECT id, ${phaseAfter(event)} AS next, ${phaseAllows(event)} AS allowed
           FROM unnest($1::int[], $2::text[], $3::boolean[], $4::text[], $5::timestamptz[]) AS cell(id, phase, tracked, last_version, last_seeded_at)
          ORDER BY id`,
        [
          cells.map((_, index) => index),
          cells.map((cell) => cell.phase),
          cells.map((cell) => cell.facts.tracked),
          cells.map((cell) => (cell.facts.hasWatermark ? '100' : null)),
          cells.map((cell) => (cell.facts.seeded ? T0 : null)),
        ],
      );
      const fromSql = result.rows.map((row) => (row.allowed ? { ok: true, phase: row.next } : { ok: false }));
      const fromMachine = cells.map((cell) => {
        const moved = transition({ phase: cell.phase, ...cell.facts }, event);
        return moved.ok ? moved : { ok: false };
      });
      expect(fromSql).toEqual(fromMachine);
    });

    it('claims no work for a table in Error (it used to become Reseeding) until StartReplication retries it', async () => {
      const table = '[public].[t]';
      const id = await replicationWith([table]);
      await seeded(id, table, '100', at(0));
      const cycle = await claimChanges(id, table, at(10));
      expect(await state.failWork(id, table, cycle, { message: 'terminal', event: 'failed-terminal', retryAt: null }, at(11))).toBe(true);

      expect(await state.claim(id, table, randomUUID(), 'seed', at(20))).toBeNull();
      expect(await state.claim(id, table, randomUUID(), 'changes', at(20))).toBeNull();
      expect(await tableState(id, table)).toMatchObject({ phase: 'Error', inFlightWorkId: null, workEpoch: 2 });

      await state.resumeTables(id, at(30));
      expect(await state.claim(id, table, randomUUID(), 'changes', at(31))).toBe(3);
      expect(await tableState(id, table)).toMatchObject({ phase: 'Tracking' });
    });

    it('claims no change cycle for a table that is not Tracking (it used to keep its phase and run it)', async () => {
      const [pending, untracked, reseeding] = ['[public].[pending]', '[public].[untracked]', '[public].[reseeding]'];
      const id = await replicationWith([pending, untracked, reseeding], [untracked]);
      await seeded(id, untracked, '0', at(0));
      await seeded(id, reseeding, '100', at(0));
      await state.reseedAll(id, 'ScdType changed', at(5));
      for (const table of [pending, untracked, reseeding]) {
        const before = await tableState(id, table);
        expect(await state.claim(id, table, randomUUID(), 'changes', at(10))).toBeNull();
        expect(await tableState(id, table)).toEqual(before);
      }
    });

    it('seeds again, with change tracking, an Untracked table discovery now tracks (it used to stay Untracked for good)', async () => {
      const [table, other] = ['[public].[t]', '[public].[other]'];
      const id = await replicationWith([table, other], [table, other]);
      await seeded(id, table, '0', at(0));
      await seeded(id, other, '0', at(0));
      // Moved from ReseedingSchedule.PkTablesToInclude into TablesToInclude: the work planner gives an
      // Untracked table only the seeds of its schedule, and a tracked table has none.
      await state.registerTables(id, 2, [
        { tableName: table, tracked: true, rowsEstimated: 10 },
        { tableName: other, tracked: false, rowsEstimated: 10 },
      ]);
      expect(await tableState(id, table)).toMatchObject({ phase: 'Reseeding', tracked: true });
      expect(await tableState(id, other)).toMatchObject({ phase: 'Untracked', tracked: false });
      await seeded(id, table, '500', at(10));
      expect(await tableState(id, table)).toMatchObject({ phase: 'Tracking', lastVersion: '500' });
    });

    it.each([
      ['a failure asking a reseed', 'failed-reseed'],
      ['a batch whose added columns ask a reseed', 'changes-loaded-reseed'],
    ])('keeps the reseed asked by %s when that reseed fails for good and is retried (it used to resume Tracking)', async (_, asked) => {
      const table = '[public].[t]';
      const id = await replicationWith([table]);
      await seeded(id, table, '100', at(0));
      const cycle = await claimChanges(id, table, at(10));
      if (asked === 'failed-reseed') {
        expect(await state.failWork(id, table, cycle, { message: 'changes purged', event: 'failed-reseed', retryAt: null }, at(11))).toBe(true);
      } else {
        expect(await state.completeChanges(id, table, cycle, '120', 1, 0, at(11), 'column(s) status added')).not.toBeNull();
      }
      expect(await tableState(id, table)).toMatchObject({ phase: 'Reseeding', lastVersion: null });
      const reseed = randomUUID();
      expect(await state.claim(id, table, reseed, 'seed', at(20))).not.toBeNull();
      expect(await state.failWork(id, table, reseed, { message: 'permission denied', event: 'failed-terminal', retryAt: null }, at(21))).toBe(true);
      await state.resumeTables(id, at(30));
      expect(await tableState(id, table)).toMatchObject({ phase: 'Pending', lastVersion: null });
    });
  });

  it('removes tables and returns the work they had in flight', async () => {
    const id = await replicationWith(['[public].[a]', '[public].[b]', '[public].[c]']);
    const workId = randomUUID();
    await state.claim(id, '[public].[a]', workId, 'seed', at(0));
    expect(await state.removeTables(id, [])).toEqual([]);
    expect(await state.removeTables(id, ['[public].[a]', '[public].[b]'])).toEqual([{ replicationId: id, tableName: '[public].[a]', workId }]);
    expect((await state.listTables([id])).map((table) => table.tableName)).toEqual(['[public].[c]']);
  });

  it('detaches leaving tables: their work released and fenced, no claim, hidden from planning, shared with no one, back when registered again', async () => {
    const id = await replicationWith(['[public].[a]', '[public].[b]']);
    const other = await replicationWith(['[public].[a]']);
    const table = '[public].[a]';
    const cycle = randomUUID();
    await seeded(id, table, '100', at(0));
    expect(await state.claim(id, table, cycle, 'changes', at(1))).not.toBeNull();
    expect(await state.detachTables(id, [])).toEqual([]);
    expect(await state.detachTables(id, [table])).toEqual([{ replicationId: id, tableName: table, workId: cycle }]);
    // The cycle's read fails on the released source asking for a reseed: fenced out, the table does not move.
    expect(await state.failWork(id, table, cycle, { message: 'not tracked', event: 'failed-reseed', retryAt: null }, at(2))).toBe(false);
    expect(await state.claim(id, table, randomUUID(), 'changes', at(3))).toBeNull();
    expect((await state.listTables([id])).map((row) => row.tableName)).toEqual(['[public].[b]']);
    expect((await state.listTables([id], { includeLeaving: true })).map((row) => [row.tableName, row.phase, row.inFlightWorkId])).toEqual([
      [table, 'Tracking', null],
      ['[public].[b]', 'Pending', null],
    ]);
    // Leaving here, it no longer keeps the other replication from releasing the source's tracking of it.
    const othersOf = async () => (await state.trackedTablesOfOthers(other)).flatMap((row) => (row.replicationId === id ? [row.tableName] : [])).sort();
    expect(await othersOf()).toEqual(['[public].[b]']);
    // Selected again before its source was released: it gets work as before.
    await state.registerTables(id, 2, [{ tableName: table, tracked: true, rowsEstimated: 10 }]);
    expect(await state.claim(id, table, randomUUID(), 'changes', at(4))).not.toBeNull();
    expect(await othersOf()).toEqual([table, '[public].[b]']);
    // Every table of a replication being deleted.
    expect((await state.detachTables(id, null)).map((work) => work.tableName)).toEqual([table]);
    expect(await othersOf()).toEqual([]);
    expect(await state.listTables([id])).toEqual([]);
  });

  it('releases work without counting a failure or changing the timeout level', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));
    const cancelled = await claimChanges(id, table, at(10));
    await state.cancelWork(id, table, cancelled, 'timed out', at(100));
    const workId = await claimChanges(id, table, at(110));
    expect(await state.releaseWork(id, table, workId, 'could not queue the work; retrying', at(111))).toBe(true);
    expect(await tableState(id, table)).toMatchObject({
      inFlightWorkId: null,
      inFlightKind: null,
      inFlightSince: null,
      ctTimeoutLevel: 1,
      failureCount: 0,
      retryAt: null,
      lastError: 'could not queue the work; retrying',
      updatedAt: at(111),
    });
  });

  it('marks a retention alert; a later watermark clears the mark', async () => {
    const id = await replicationWith(['[public].[t]']);
    const table = '[public].[t]';
    await seeded(id, table, '100', at(0));
    expect(await tableState(id, table)).toMatchObject({ watermarkAt: at(0), retentionAlertedAt: null });
    await state.markRetentionAlerted(id, table, at(3600));
    expect(await tableState(id, table)).toMatchObject({ watermarkAt: at(0), retentionAlertedAt: at(3600) });
    const workId = await claimChanges(id, table, at(3700));
    await state.completeChanges(id, table, workId, '101', 1, 0, at(3701));
    expect(await tableState(id, table)).toMatchObject({ watermarkAt: at(3701), retentionAlertedAt: null });
  });

  it('lists tracked tables of other replications, leaving out its own and those being deleted', async () => {
    const self = await replicationWith(['[public].[shared]']);
    const other = await replicationWith(['[public].[shared]', '[public].[keyless]'], ['[public].[keyless]']);
    const deleting = await replicationWith(['[public].[gone]']);
    await replications.setStatus(deleting, 'Deleting', null);

    const others = (await state.trackedTablesOfOthers(self)).filter((entry) => [self, other, deleting].includes(entry.replicationId));
    expect(others).toEqual([{ replicationId: other, tableName: '[public].[shared]' }]);
  });

  it('records seed progress of the work in flight and moves updated_at to the given time', async () => {
    const id = await replicationWith(['[public].[big]']);
    const table = '[public].[big]';
    const workId = randomUUID();
    await state.claim(id, table, workId, 'seed', at(0));
    expect(await tableState(id, table)).toMatchObject({ updatedAt: at(0) });
    expect(await state.recordSeedProgress(id, table, workId, 1000, at(600))).toBe(true);
    expect(await state.recordSeedProgress(id, table, workId, 500, at(900))).toBe(true);
    expect(await tableState(id, table)).toMatchObject({ updatedAt: at(900), phase: 'Seeding', inFlightWorkId: workId });
    const rows = await pool.query<{ rows_seeded: string }>('SELECT rows_seeded FROM table_states WHERE replication_id = $1', [id]);
    expect(rows.rows[0]?.rows_seeded).toBe('1500');
    expect(await state.completeSeed(id, table, workId, '100', 250, at(1000))).toBe(true);
    const done = await pool.query<{ rows_seeded: string; rows_estimated: string }>('SELECT rows_seeded, rows_estimated FROM table_states WHERE replication_id = $1', [id]);
    expect(done.rows[0]).toEqual({ rows_seeded: '1750', rows_estimated: '1750' });
  });

  describe("an error's detail (issue 19)", () => {
    it('is stored redacted and bounded with its error, and cleared with it', async () => {
      const table = '[public].[detail]';
      const id = await replicationWith([table]);
      await seeded(id, table, '10', at(0));
      const workId = await claimChanges(id, table, at(10));
      const detail = `invalid input syntax for type integer: "secret-value" via postgres://app:hunter2-pw@db/x ${'x'.repeat(2000)}`;
      expect(await state.failWork(id, table, workId, { message: 'Source: a value does not fit its column', detail, event: 'failed-terminal', retryAt: null }, at(11))).toBe(true);
      const failed = await tableState(id, table);
      expect(failed.lastError).toBe('Source: a value does not fit its column');
      expect(failed.lastErrorDetail).toContain('secret-value');
      expect(failed.lastErrorDetail).not.toContain('hunter2-pw');
      expect(failed.lastErrorDetail).toHaveLength(1000);

      expect(await state.resumeTables(id, at(20))).toBe(1);
      expect(await tableState(id, table)).toMatchObject({ lastError: null, lastErrorDetail: null });
    });

    it('of a replication goes with its error', async () => {
      const { replicationId } = await replications.insert({ status: 'Running', config }, author);
      expect(await replications.setStatus(replicationId, 'Failed', 'Warehouse: authentication failed', 'password authentication failed for user "loader"')).toBe(true);
      const failed = await replications.get(replicationId);
      expect(failed).toMatchObject({ lastError: 'Warehouse: authentication failed', lastErrorDetail: 'password authentication failed for user "loader"' });
      // A change that keeps the error keeps its detail; one that clears it clears both.
      const kept = await replications.update(replicationId, 1, { config, status: 'Failed', lastError: 'Warehouse: authentication failed', changedFields: [] }, author);
      expect(kept?.lastErrorDetail).toBe('password authentication failed for user "loader"');
      const cleared = await replications.update(replicationId, 2, { config, status: 'Running', lastError: null, changedFields: [] }, author);
      expect(cleared).toMatchObject({ lastError: null, lastErrorDetail: null });
    });

    it('takes over errors stored before reasons were classified (migration 9)', async () => {
      const older = await createTempDatabase('svc_error_detail_migration_it');
      const olderPool = new Pool({ connectionString: older.url, max: 2 });
      try {
        await migrate(olderPool, MIGRATIONS.filter((migration) => migration.version < 9));
        // Written by hand: the repository reads columns of the current schema.
        const replicationId = randomUUID();
        await olderPool.query(`INSERT INTO replications (id, name, status, config, secrets) VALUES ($1, 'old', 'Failed', '{}', '\\x00')`, [replicationId]);
        await olderPool.query(`UPDATE replications SET last_error = 'duplicate key value violates unique constraint: Key (email)=(alice@example.com) already exists' WHERE id = $1`, [replicationId]);
        await migrate(olderPool);
        const [row] = (await olderPool.query<{ last_error: string; last_error_detail: string }>('SELECT last_error, last_error_detail FROM replications WHERE id = $1', [replicationId])).rows;
        expect(row).toEqual({
          last_error: 'an error recorded before reasons were classified (see LastErrorDetail)',
          last_error_detail: 'duplicate key value violates unique constraint: Key (email)=(alice@example.com) already exists',
        });
      } finally {
        await olderPool.end();
        await older.drop();
      }
    });
  });
});

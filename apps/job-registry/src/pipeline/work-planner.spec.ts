import { NOW, replication, settings, table } from '../testing/pipeline-fixtures';
import { planWork, unservedTables } from './work-planner';

describe('planWork', () => {
  it('seeds pending tables before change cycles and respects ParallelTablesLimit', () => {
    const orders = planWork(NOW, [replication()], [table('[public].[a]'), table('[public].[b]', { phase: 'Pending', lastVersion: null }), table('[public].[c]')], settings);
    expect(orders).toEqual([
      { replicationId: 'r1', tableName: '[public].[b]', kind: 'seed', track: true, batchLimit: 500, configVersion: 1 },
      { replicationId: 'r1', tableName: '[public].[a]', kind: 'changes', track: true, fromVersion: '100', batchLimit: 500, configVersion: 1 },
    ]);
  });

  it('gives a change cycle the source incarnation stored with its watermark (a restore past the watermark reseeds)', () => {
    const orders = planWork(NOW, [replication()], [table('[public].[a]', { lastIncarnation: 'recovery fork F1, database D1' }), table('[public].[b]')], settings);
    expect(orders.map((order) => order.fromIncarnation)).toEqual(['recovery fork F1, database D1', undefined]);
  });

  it('resumes a chunked seed whose chunks are not all loaded, and closes it from its horizon once they are', () => {
    const plan = { seedId: 's1', startVersion: '42', sourceIncarnation: 'fork F1', chunkCount: 8 };
    const resumed = planWork(NOW, [replication()], [table('[public].[a]', { phase: 'Seeding', lastVersion: null, seedPlan: { ...plan, chunksLoaded: 5 } })], settings);
    expect(resumed).toEqual([{ replicationId: 'r1', tableName: '[public].[a]', kind: 'seed', track: true, batchLimit: 500, configVersion: 1 }]);
    const closed = planWork(NOW, [replication()], [table('[public].[a]', { phase: 'Reseeding', lastVersion: null, seedPlan: { ...plan, chunksLoaded: 8 } })], settings);
    expect(closed.map((order) => order.seedClose)).toEqual([{ seedId: 's1', chunkCount: 8, fromVersion: '42', fromIncarnation: 'fork F1' }]);
  });

  it('counts a group as one against ParallelTablesLimit, in flight and planned (its members read one at a time)', () => {
    const grouping = { maxTables: 3, maxRows: 1000 };
    const idle = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => table(`[public].[${name}]`, { lastCycleAt: null }));
    // Limit 2: two groups of three.
    expect(planWork(NOW, [replication()], idle, { ...settings, grouping })).toHaveLength(6);
    // A group of three in flight holds one unit: one more group.
    const inFlight = ['x', 'y', 'z'].map((name) => table(`[public].[${name}]`, { inFlightWorkId: `w-${name}`, inFlightGroupId: 'g-1' }));
    expect(planWork(NOW, [replication()], [...inFlight, ...idle], { ...settings, grouping })).toHaveLength(3);
    // A table that moved many rows goes alone, and takes a unit of its own.
    const big = table('[public].[big]', { lastCycleAt: null, lastCycleRows: 5000 });
    const planned = planWork(NOW, [replication()], [...inFlight, big, ...idle], { ...settings, grouping });
    expect(planned.map((order) => order.tableName)).toEqual(['[public].[big]']);
    // Without grouping, each table is a unit, as before.
    expect(planWork(NOW, [replication()], idle, settings)).toHaveLength(2);
  });

  it('waits for the next probe of a table no probe has judged at its new watermark, up to pendingProbeMs, then cycles it anyway (issue 39: after a burst)', () => {
    const judged = (verdict: 'pending' | null) => ({ ...settings, idleCycleDelayMs: 500, pendingProbeMs: 5000, changeVerdict: () => verdict });
    const endedAgo = (ms: number) => table('[public].[a]', { lastCycleAt: new Date(NOW.getTime() - ms), lastCycleRows: 1 });
    expect(planWork(NOW, [replication()], [endedAgo(1000)], judged('pending'))).toEqual([]);
    expect(planWork(NOW, [replication()], [endedAgo(5000)], judged('pending'))).toHaveLength(1);
    // Probes that do not answer leave it to the idle delay, as before.
    expect(planWork(NOW, [replication()], [endedAgo(1000)], judged(null))).toHaveLength(1);
  });

  it('counts work already in flight against the limit', () => {
    const orders = planWork(NOW, [replication()], [table('[public].[a]', { inFlightWorkId: 'w' }), table('[public].[b]'), table('[public].[c]')], settings);
    expect(orders).toHaveLength(1);
  });

  it.each([
    ['Stopped replication', replication({}, 'Stopped')],
    ['Failed replication', replication({}, 'Failed')],
    ['DataReplication=false', replication({ dataReplication: false })],
  ])('plans nothing for a %s', (_name, subject) => {
    expect(planWork(NOW, [subject], [table('[public].[a]')], settings)).toEqual([]);
  });

  it('cycles again at once after a cycle that moved a whole batch (a backlog is left), and waits the idle delay after a smaller one (continuous)', () => {
    const recent = new Date(NOW.getTime() - 200);
    const limited = replication({ changeTrackingBatchLimit: 1000 });
    expect(planWork(NOW, [limited], [table('[public].[a]', { lastCycleAt: recent, lastCycleRows: 0 })], settings)).toEqual([]);
    expect(planWork(NOW, [limited], [table('[public].[a]', { lastCycleAt: recent, lastCycleRows: 5 })], settings)).toEqual([]);
    expect(planWork(NOW, [limited], [table('[public].[a]', { lastCycleAt: recent, lastCycleRows: 1000 })], settings)).toHaveLength(1);
  });

  describe('with the source\'s change probe (ChangeProbes)', () => {
    const probed = (verdicts: Record<string, 'changed' | 'unchanged'>) => ({
      ...settings,
      idleRecheckMs: 300_000,
      changeVerdict: (subject: { tableName: string }) => verdicts[subject.tableName] ?? null,
    });
    const idle = (name: string, idleForMs: number) => table(name, { lastCycleAt: new Date(NOW.getTime() - idleForMs), lastCycleRows: 0 });

    it('cycles an idle table the probe found changed at once, without waiting the idle delay', () => {
      expect(planWork(NOW, [replication()], [idle('[public].[a]', 10)], probed({ '[public].[a]': 'changed' }))).toHaveLength(1);
    });

    it('leaves an idle table the probe found unchanged alone until the recheck interval, however long the idle delay has passed', () => {
      expect(planWork(NOW, [replication()], [idle('[public].[a]', 60_000)], probed({ '[public].[a]': 'unchanged' }))).toEqual([]);
      expect(planWork(NOW, [replication()], [idle('[public].[a]', 300_000)], probed({ '[public].[a]': 'unchanged' }))).toHaveLength(1);
    });

    it('falls back to the idle delay for a table the probe has no answer for (never asked, or its watermark moved since)', () => {
      expect(planWork(NOW, [replication()], [idle('[public].[a]', 200)], probed({}))).toEqual([]);
      expect(planWork(NOW, [replication()], [idle('[public].[a]', 1000)], probed({}))).toHaveLength(1);
    });

    it('lets the probe judge a table whose last cycle moved rows, as an idle one (issue 39: no empty cycle after each change)', () => {
      const busy = table('[public].[a]', { lastCycleAt: new Date(NOW.getTime() - 10), lastCycleRows: 7 });
      expect(planWork(NOW, [replication()], [busy], probed({ '[public].[a]': 'unchanged' }))).toEqual([]);
      expect(planWork(NOW, [replication()], [busy], probed({ '[public].[a]': 'changed' }))).toHaveLength(1);
    });

    it('keeps cycling a table whose last cycle moved a whole batch, whatever the probe said', () => {
      const backlog = table('[public].[a]', { lastCycleAt: new Date(NOW.getTime() - 10), lastCycleRows: 1000 });
      expect(planWork(NOW, [replication({ changeTrackingBatchLimit: 1000 })], [backlog], probed({ '[public].[a]': 'unchanged' }))).toHaveLength(1);
    });

    it('after a burst of one change in each of 1,000 tables, gives the capacity to the table that changed again, not to 1,000 empty cycles', () => {
      const justCycled = Array.from({ length: 1000 }, (_, index) => table(`[public].[t${index}]`, { lastCycleAt: new Date(NOW.getTime() - 100 - index), lastCycleRows: 1 }));
      const verdicts = { ...Object.fromEntries(justCycled.map((t) => [t.tableName, 'unchanged' as const])), '[public].[t500]': 'changed' as const };
      const orders = planWork(NOW, [replication({ parallelTablesLimit: 10 })], justCycled, probed(verdicts));
      expect(orders.map((order) => order.tableName)).toEqual(['[public].[t500]']);
    });

    it('gives the capacity to the changed tables among many idle ones', () => {
      const tables = Array.from({ length: 1000 }, (_, index) => idle(`[public].[t${index}]`, 2000));
      const orders = planWork(NOW, [replication({ parallelTablesLimit: 10 })], tables, probed({ ...Object.fromEntries(tables.map((t) => [t.tableName, 'unchanged' as const])), '[public].[t999]': 'changed' }));
      expect(orders.map((order) => order.tableName)).toEqual(['[public].[t999]']);
    });
  });

  it('runs every RepeatIntervalInMinutes when not continuous', () => {
    const config = { isContinuous: false, repeatIntervalInMinutes: 15 };
    expect(planWork(NOW, [replication(config)], [table('[public].[a]', { lastCycleAt: new Date(NOW.getTime() - 14 * 60000), lastCycleRows: 9 })], settings)).toEqual([]);
    expect(planWork(NOW, [replication(config)], [table('[public].[a]', { lastCycleAt: new Date(NOW.getTime() - 15 * 60000) })], settings)).toHaveLength(1);
  });

  it('keeps change cycles inside ScheduleIntervalTimeFrom/To', () => {
    const closed = { scheduleIntervalTimeFrom: '01:00:00 AM', scheduleIntervalTimeTo: '05:00:00 AM' };
    const open = { scheduleIntervalTimeFrom: '10:00:00 AM', scheduleIntervalTimeTo: '02:00:00 PM' };
    expect(planWork(NOW, [replication(closed)], [table('[public].[a]')], settings)).toEqual([]);
    expect(planWork(NOW, [replication(open)], [table('[public].[a]')], settings)).toHaveLength(1);
  });

  it('reseeds an untracked table on its schedule, inside its window, every RepeatIntervalInMinutes', () => {
    const schedule = { noPkTablesToInclude: ['[public].[log]'], pkTablesToInclude: [], fromTime: '11:00:00 AM', toTime: '01:00:00 PM', repeatIntervalInMinutes: 60 };
    const untracked = (lastSeededMinutesAgo: number) =>
      table('[public].[log]', { phase: 'Untracked', tracked: false, lastVersion: null, lastSeededAt: new Date(NOW.getTime() - lastSeededMinutesAgo * 60000) });
    expect(planWork(NOW, [replication({ reseedingSchedule: schedule })], [untracked(61)], settings)).toEqual([
      { replicationId: 'r1', tableName: '[public].[log]', kind: 'seed', track: false, batchLimit: 500, configVersion: 1 },
    ]);
    expect(planWork(NOW, [replication({ reseedingSchedule: schedule })], [untracked(30)], settings)).toEqual([]);
    const outside = { ...schedule, fromTime: '01:00:00 AM', toTime: '02:00:00 AM' };
    expect(planWork(NOW, [replication({ reseedingSchedule: outside })], [untracked(61)], settings)).toEqual([]);
    expect(planWork(NOW, [replication()], [untracked(61)], settings)).toEqual([]);
  });

  it('leaves tables in Error alone and restarts a seed whose work vanished', () => {
    expect(planWork(NOW, [replication()], [table('[public].[a]', { phase: 'Error' })], settings)).toEqual([]);
    expect(planWork(NOW, [replication()], [table('[public].[a]', { phase: 'Seeding', lastVersion: null })], settings)[0]?.kind).toBe('seed');
  });

  it('runs change cycles in a window that crosses midnight, on both sides of it', () => {
    const overnight = { scheduleIntervalTimeFrom: '10:00:00 PM', scheduleIntervalTimeTo: '02:00:00 AM' };
    const at = (hours: number, minutes = 0) => new Date(Date.UTC(2026, 10, 23, hours, minutes, 0));
    const planAt = (now: Date) => planWork(now, [replication(overnight)], [table('[public].[a]', { lastCycleAt: new Date(now.getTime() - 5000) })], settings);
    expect(planAt(at(21, 59))).toEqual([]);
    expect(planAt(at(22, 0))).toHaveLength(1);
    expect(planAt(at(23, 59))).toHaveLength(1);
    expect(planAt(at(0, 30))).toHaveLength(1);
    expect(planAt(at(2, 0))).toHaveLength(1);
    expect(planAt(at(2, 1))).toEqual([]);
    expect(planAt(at(12, 0))).toEqual([]);
  });

  it('reseeds inside a ReseedingSchedule window that crosses midnight', () => {
    const schedule = { noPkTablesToInclude: ['[public].[log]'], pkTablesToInclude: [], fromTime: '11:30:00 PM', toTime: '12:30:00 AM', repeatIntervalInMinutes: 60 };
    const untracked = table('[public].[log]', { phase: 'Untracked', tracked: false, lastVersion: null, lastSeededAt: new Date(NOW.getTime() - 24 * 3600000) });
    const planAt = (hours: number, minutes: number) => planWork(new Date(Date.UTC(2026, 10, 23, hours, minutes)), [replication({ reseedingSchedule: schedule })], [untracked], settings);
    expect(planAt(23, 45)).toHaveLength(1);
    expect(planAt(0, 15)).toHaveLength(1);
    expect(planAt(1, 0)).toEqual([]);
  });

  it('combines RepeatIntervalInMinutes with the daily window', () => {
    const config = { isContinuous: false, repeatIntervalInMinutes: 30, scheduleIntervalTimeFrom: '11:00:00 AM', scheduleIntervalTimeTo: '11:59:59 AM' };
    const lastCycleAt = new Date(NOW.getTime() - 40 * 60000);
    // Due by the interval, but NOW (12:00) is past the window's end.
    expect(planWork(NOW, [replication(config)], [table('[public].[a]', { lastCycleAt })], settings)).toEqual([]);
    expect(planWork(new Date(NOW.getTime() - 60000), [replication(config)], [table('[public].[a]', { lastCycleAt: new Date(lastCycleAt.getTime() - 60000) })], settings)).toHaveLength(1);
  });

  it('waits out the retry backoff of a table whose work failed, whatever its phase', () => {
    const waiting = { retryAt: new Date(NOW.getTime() + 1000), failureCount: 2 };
    expect(planWork(NOW, [replication()], [table('[public].[a]', waiting)], settings)).toEqual([]);
    expect(planWork(NOW, [replication()], [table('[public].[a]', { ...waiting, phase: 'Pending', lastVersion: null })], settings)).toEqual([]);
    expect(planWork(NOW, [replication()], [table('[public].[a]', { retryAt: NOW, failureCount: 2 })], settings)).toHaveLength(1);
  });

  it('plans nothing for a stopped replication (DataReplication=false or status Stopped/Failed)', () => {
    expect(planWork(NOW, [replication({ dataReplication: false })], [table('[public].[a]')], settings)).toEqual([]);
    expect(planWork(NOW, [replication({}, 'Stopped')], [table('[public].[a]')], settings)).toEqual([]);
    expect(planWork(NOW, [replication({}, 'Failed')], [table('[public].[a]')], settings)).toEqual([]);
  });

  it('uses ChangeTrackingBatchLimit and ParallelTablesLimit as stored now (an Alter applies at the next pass)', () => {
    const tables = ['a', 'b', 'c'].map((name) => table(`[public].[${name}]`));
    expect(planWork(NOW, [replication({ parallelTablesLimit: 1, changeTrackingBatchLimit: 7 })], tables, settings)).toEqual([
      { replicationId: 'r1', tableName: '[public].[a]', kind: 'changes', track: true, fromVersion: '100', batchLimit: 7, configVersion: 1 },
    ]);
    expect(planWork(NOW, [replication({ parallelTablesLimit: 3 })], tables, settings)).toHaveLength(3);
  });
});

describe('unservedTables', () => {
  it('keeps tables in flight and those not served since the run started', () => {
    const runStart = new Date(NOW.getTime() - 1000);
    const served = table('[public].[served]', { lastCycleAt: NOW });
    const waiting = table('[public].[waiting]', { lastCycleAt: new Date(NOW.getTime() - 2000) });
    const busy = table('[public].[busy]', { inFlightWorkId: 'w', lastCycleAt: NOW });
    expect(unservedTables([served, waiting, busy], runStart).map((t) => t.tableName)).toEqual(['[public].[waiting]', '[public].[busy]']);
    expect(unservedTables([served, waiting, busy], null)).toHaveLength(3);
  });
});

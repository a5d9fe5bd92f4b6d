import type { SchedulableReplication, TableRuntimeState } from '@svc/registry-store';
import { planWork } from './work-planner';

const NOW = new Date(Date.UTC(2026, 10, 23, 12, 0, 0));
const settings = { idleCycleDelayMs: 1000, minuteMs: 60000 };

function replication(overrides: Partial<SchedulableReplication['config']> = {}, status: SchedulableReplication['status'] = 'Running'): SchedulableReplication {
  return {
    replicationId: 'r1',
    status,
    configVersion: 1,
    discoveredConfigVersion: 1,
    config: {
      replicationName: 'r',
      parallelTablesLimit: 2,
      rebuildIndexes: false,
      addUpdateTimestamp: false,
      tablesToInclude: 'All',
      dataReplication: true,
      schemaReplication: true,
      changeTrackingBatchLimit: 500,
      ctProcessTimeoutInMinutes: 30,
      serializedCtProcessTimeoutInMinutes: 30,
      autoSerializedCtProcessTimeoutInMinutes: 30,
      isContinuous: true,
      isLogErrorsOnly: true,
      alertOnSuccessfulTableSchemaChanges: false,
      ...overrides,
    },
  };
}

function table(name: string, overrides: Partial<TableRuntimeState> = {}): TableRuntimeState {
  return {
    replicationId: 'r1',
    tableName: name,
    phase: 'Tracking',
    tracked: true,
    lastVersion: '100',
    inFlightWorkId: null,
    inFlightKind: null,
    inFlightSince: null,
    lastSeededAt: new Date(NOW.getTime() - 3600000),
    lastCycleAt: new Date(NOW.getTime() - 5000),
    lastCycleRows: 0,
    ...overrides,
  };
}

describe('planWork', () => {
  it('seeds pending tables before change cycles and respects ParallelTablesLimit', () => {
    const orders = planWork(NOW, [replication()], [table('[public].[a]'), table('[public].[b]', { phase: 'Pending', lastVersion: null }), table('[public].[c]')], settings);
    expect(orders).toEqual([
      { replicationId: 'r1', tableName: '[public].[b]', kind: 'seed', track: true, batchLimit: 500 },
      { replicationId: 'r1', tableName: '[public].[a]', kind: 'changes', track: true, fromVersion: '100', batchLimit: 500 },
    ]);
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

  it('waits the idle delay after an empty cycle but not after a busy one (continuous)', () => {
    const recent = new Date(NOW.getTime() - 200);
    expect(planWork(NOW, [replication()], [table('[public].[a]', { lastCycleAt: recent, lastCycleRows: 0 })], settings)).toEqual([]);
    expect(planWork(NOW, [replication()], [table('[public].[a]', { lastCycleAt: recent, lastCycleRows: 5 })], settings)).toHaveLength(1);
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
      { replicationId: 'r1', tableName: '[public].[log]', kind: 'seed', track: false, batchLimit: 500 },
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
});

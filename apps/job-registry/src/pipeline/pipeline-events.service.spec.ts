import type { BatchLoaded } from '@svc/contracts';
import type { JsonLogger } from '@svc/logging';
import type { BatchHalfKey, BatchHalvesRepository, PipelineStateRepository, ReplicationStore } from '@svc/registry-store';
import type { AlertsService } from './alerts.service';
import type { MetricsHistoryService } from './metrics-history.service';
import { PipelineEventsService } from './pipeline-events.service';
import { SchedulerWake } from './scheduler-wake';
import type { SeedPlansService } from './seed-plans.service';

const loaded: BatchLoaded = {
  workId: 'work-1',
  batchId: 'batch-1',
  replicationId: 'r1',
  table: { schema: 'public', name: 'c' },
  kind: 'changes',
  version: '20',
  rowCount: 1,
  addedColumns: [],
  extractedAt: '2026-11-26T10:00:00.000Z',
  loadedAt: '2026-11-26T10:00:01.000Z',
};

/** The registry's side of a loaded batch, with the stores it writes to as fakes that record alerts. */
function serviceWith(alertOnSuccessfulTableSchemaChanges: boolean) {
  const raised: { kind: string; message: string }[] = [];
  const calls: string[] = [];
  const state = {
    completeChanges: (...args: unknown[]) => Promise.resolve(void calls.push(`completeChanges ${JSON.stringify(args.slice(2, 5))}`)).then(() => ({ fromVersion: '10', startedAt: null })),
    recordChangesProgress: (...args: unknown[]) =>
      Promise.resolve(void calls.push(`recordChangesProgress ${JSON.stringify(args.slice(2, 5))}`)).then(() => ({ fromVersion: '10', startedAt: null })),
  } as unknown as PipelineStateRepository;
  const alerts = {
    raise: (alert: { kind: string; message: string }) => Promise.resolve(void raised.push({ kind: alert.kind, message: alert.message })),
    resolveWorking: () => Promise.resolve(),
  } as unknown as AlertsService;
  const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as JsonLogger;
  const replications = { get: () => Promise.resolve({ config: { isLogErrorsOnly: true, alertOnSuccessfulTableSchemaChanges } }) } as unknown as ReplicationStore;
  const metrics = { record: () => Promise.resolve() } as unknown as MetricsHistoryService;
  const wake = new SchedulerWake();
  let wakes = 0;
  wake.listen(() => (wakes += 1));
  // Halves as batch_halves keeps them: the loader's report until staging's comes, and the other way round.
  const kept = new Map<string, { staged: boolean; loaded: unknown }>();
  const halfOf = (key: BatchHalfKey) => {
    const id = `${key.workId}/${key.batchId}/${key.epoch}`;
    const half = kept.get(id) ?? { staged: false, loaded: null };
    kept.set(id, half);
    return half;
  };
  const halves = {
    loaded: (key: BatchHalfKey, report: unknown) => Promise.resolve(Object.assign(halfOf(key), { loaded: report }).staged),
    stagingApplied: (key: BatchHalfKey) => Promise.resolve(Object.assign(halfOf(key), { staged: true }).loaded),
    forget: (key: BatchHalfKey) => Promise.resolve(void kept.delete(`${key.workId}/${key.batchId}/${key.epoch}`)),
  } as unknown as BatchHalvesRepository;
  const service = new PipelineEventsService(state, alerts, logger, replications, metrics, wake, {} as SeedPlansService, halves);
  return { service, raised, calls, wakes: () => wakes, kept };
}

describe('PipelineEventsService: SchemaChange alerts for column type changes and renames (issue 21, item 13)', () => {
  const noticed: BatchLoaded = {
    ...loaded,
    schemaChanges: ['widened column n from integer to bigint in staging', 'widened column n from integer to bigint in the warehouse'],
    suspectedRenames: ['column label is gone from the source and title appeared in its place with the same type: a rename? …'],
  };

  it('says widenings when asked for successful schema changes, and a suspected rename', async () => {
    const { service, raised } = serviceWith(true);
    await service.batchLoaded(noticed);
    expect(raised).toEqual([
      { kind: 'SchemaChange', message: '[public].[c]: widened column n from integer to bigint in staging; widened column n from integer to bigint in the warehouse' },
      { kind: 'SchemaChange', message: '[public].[c]: column label is gone from the source and title appeared in its place with the same type: a rename? …' },
    ]);
  });

  it('says a suspected rename (a column left stale) even when successful schema changes are not alerted', async () => {
    const { service, raised } = serviceWith(false);
    await service.batchLoaded(noticed);
    expect(raised.map((alert) => alert.kind)).toEqual(['SchemaChange']);
    expect(raised[0]?.message).toContain('[public].[c]: column label is gone from the source');
  });
});

describe('PipelineEventsService: the scheduler is woken when a table\'s next cycle is due at once', () => {
  it('wakes it after a change cycle that carried rows, not after an empty one', async () => {
    const { service, wakes } = serviceWith(false);
    await service.batchLoaded({ ...loaded, rowCount: 0 });
    expect(wakes()).toBe(0);
    await service.batchLoaded(loaded);
    expect(wakes()).toBe(1);
  });
});

describe('PipelineEventsService: a work of several change batches (issue 23, goal 2)', () => {
  it('moves the watermark from each batch that more follow, keeping the work in flight, and completes the work with its last', async () => {
    const { service, calls, wakes } = serviceWith(false);
    await service.batchLoaded({ ...loaded, fromVersion: '10', version: '20', final: false });
    await service.batchLoaded({ ...loaded, fromVersion: '20', version: '30' });
    expect(calls).toEqual(['recordChangesProgress ["work-1",{"fromVersion":"10","toVersion":"20"},1]', 'completeChanges ["work-1","30",1]']);
    // The next cycle is due only once the work is done: a batch that more follow does not wake the scheduler.
    expect(wakes()).toBe(1);
  });

  it('stores with each watermark the source incarnation its batch was read in (issue 37 item 2)', async () => {
    const { service, calls } = serviceWith(false);
    await service.batchLoaded({ ...loaded, fromVersion: '10', version: '20', final: false, sourceIncarnation: 'fork F1' });
    expect(calls).toEqual(['recordChangesProgress ["work-1",{"fromVersion":"10","toVersion":"20","incarnation":"fork F1"},1]']);
  });

  it('completes the work at a batch that more follow when its added columns ask for a reseed', async () => {
    const { service, calls } = serviceWith(false);
    await service.batchLoaded({ ...loaded, fromVersion: '10', version: '20', final: false, addedColumns: ['c'], filledColumns: ['c'] });
    expect(calls).toEqual(['completeChanges ["work-1","20",1]']);
  });
});

describe('PipelineEventsService: a batch staging and the warehouse apply at once (issue 39, item 2)', () => {
  const atOnce: BatchLoaded = { ...loaded, epoch: 4, awaitsStaging: true };
  const staged = { workId: 'work-1', batchId: 'batch-1', replicationId: 'r1', table: loaded.table, epoch: 4, appliedAt: '2026-11-26T10:00:01.500Z' };

  it('moves the watermark when the loader reports after staging, not before', async () => {
    const { service, calls, kept } = serviceWith(false);
    await service.batchStagingApplied(staged);
    expect(calls).toEqual([]);
    await service.batchLoaded(atOnce);
    expect(calls).toEqual(['completeChanges [{"workId":"work-1","epoch":4},"20",1]']);
    expect(kept.size).toBe(0);
  });

  it('moves it when staging reports after the loader, with the loader\'s report', async () => {
    const { service, calls } = serviceWith(false);
    await service.batchLoaded(atOnce);
    expect(calls).toEqual([]);
    await service.batchStagingApplied(staged);
    expect(calls).toEqual(['completeChanges [{"workId":"work-1","epoch":4},"20",1]']);
  });

  it('does not pair halves of another attempt of the batch', async () => {
    const { service, calls } = serviceWith(false);
    await service.batchLoaded(atOnce);
    await service.batchStagingApplied({ ...staged, epoch: 5 });
    expect(calls).toEqual([]);
  });

  it('completes a batch of a loader report without the flag (a stager that applied before handing off) at once', async () => {
    const { service, calls } = serviceWith(false);
    await service.batchLoaded(loaded);
    expect(calls).toHaveLength(1);
  });
});

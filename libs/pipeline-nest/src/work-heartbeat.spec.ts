import { Portable, PipelineSubjects, type BatchStaged, type ExtractRequested, type WorkProgress } from '@svc/contracts';
import type { PipelineWorkerOptions } from '@svc/messaging';
import { reportingProgress, workProgressOf } from './work-heartbeat';

const table = { schema: 'public', name: 't' };
const at = new Date(Date.UTC(2030, 0, 1));

const requested: ExtractRequested = { workId: 'w-1', replicationId: 'r-1', table, kind: 'changes', track: true, batchLimit: 10, epoch: 3, requestedAt: at.toISOString() };
const staged: BatchStaged = {
  workId: 'w-2',
  batch: {
    batchId: 'b-1',
    replicationId: 'r-2',
    epoch: 1,
    definition: { table, columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }], primaryKey: ['id'], estimatedRows: 0 },
    body: { kind: 'changes', fromVersion: '1', toVersion: '2' },
  },
  files: { bucket: 'b', manifestKey: 'm', partKeys: [] },
  rowCount: 0,
  addedColumns: [],
  extractedAt: at.toISOString(),
};

describe('workProgressOf', () => {
  it('names the unit of work, its table and the stage handling it', () => {
    expect(workProgressOf(PipelineSubjects.extractRequested, requested, at)).toEqual([{ workId: 'w-1', replicationId: 'r-1', table, stage: 'extract', at: at.toISOString(), epoch: 3 }]);
    expect(workProgressOf(PipelineSubjects.batchStaged, staged, at)).toEqual([{ workId: 'w-2', replicationId: 'r-2', table, stage: 'load', at: at.toISOString(), epoch: 1 }]);
  });

  it('names the attempt\'s epoch only where the message carries it: not for a work request delivered again (it runs under a new one), always for a chunk', () => {
    expect(workProgressOf(PipelineSubjects.extractRequested, requested, at, 2)).toEqual([{ workId: 'w-1', replicationId: 'r-1', table, stage: 'extract', at: at.toISOString() }]);
    const chunk: ExtractRequested = { ...requested, kind: 'seed', chunk: { seedId: 's-1', index: 4, count: 9, startVersion: '7', lower: null, upper: null } };
    expect(workProgressOf(PipelineSubjects.extractRequested, chunk, at, 2)).toEqual([expect.objectContaining({ epoch: 3 })]);
    expect(workProgressOf(PipelineSubjects.batchStaged, staged, at, 5)).toEqual([expect.objectContaining({ epoch: 1 })]);
  });

  it('names each member of a group', () => {
    const other = { ...staged, workId: 'w-3', batch: { ...staged.batch, definition: { ...staged.batch.definition, table: { schema: 'public', name: 'u' } } } };
    expect(workProgressOf(PipelineSubjects.batchStaged, { workId: 'g-1', group: [staged, other] }, at)).toEqual([
      { workId: 'w-2', replicationId: 'r-2', table, stage: 'load', at: at.toISOString(), epoch: 1 },
      { workId: 'w-3', replicationId: 'r-2', table: { schema: 'public', name: 'u' }, stage: 'load', at: at.toISOString(), epoch: 1 },
    ]);
  });
});

describe('reportingProgress', () => {
  it('beats when a handler starts and every interval until it ends, then stops', async () => {
    const beats: WorkProgress[] = [];
    let finish: () => void = () => undefined;
    const options: PipelineWorkerOptions<typeof PipelineSubjects.batchStaged> = {
      subject: PipelineSubjects.batchStaged,
      durableName: 'loader',
      concurrency: 1,
      guard: (payload): payload is BatchStaged => payload !== null,
      handle: () => new Promise<void>((resolve) => (finish = resolve)),
    };
    const handling = reportingProgress(options, (progress) => beats.push(progress), 20).handle(staged, { deliveryCount: 1 });
    expect(beats).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 70));
    expect(beats.length).toBeGreaterThanOrEqual(3);
    finish();
    await handling;
    const count = beats.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(beats).toHaveLength(count);
    expect(beats.every((beat) => beat.workId === 'w-2' && beat.stage === 'load')).toBe(true);
  });

  it('a failing send never fails the work', async () => {
    const options: PipelineWorkerOptions<typeof PipelineSubjects.extractRequested> = {
      subject: PipelineSubjects.extractRequested,
      durableName: 'extractor',
      concurrency: 1,
      guard: (payload): payload is ExtractRequested => payload !== null,
      handle: () => Promise.resolve(),
    };
    const send = (): void => {
      throw new Error('connection closed');
    };
    await expect(reportingProgress(options, send).handle(requested, { deliveryCount: 1 })).resolves.toBeUndefined();
  });
});

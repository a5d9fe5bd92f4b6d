import { Portable, PipelineSubjects, type BatchStaged } from '@svc/contracts';
import type { PipelineWorkerOptions } from '@svc/messaging';
import { skippingCancelledWork } from './cancelled-work-filter';

type Options = PipelineWorkerOptions<typeof PipelineSubjects.batchStaged>;

function staged(workId: string): BatchStaged {
  return {
    workId,
    batch: {
      batchId: 'b-1',
      replicationId: 'r-1',
      epoch: 1,
      definition: { table: { schema: 'public', name: 't' }, columns: [{ name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false }], primaryKey: ['id'], estimatedRows: 0 },
      body: { kind: 'changes', fromVersion: '1', toVersion: '2' },
    },
    files: { bucket: 'b', manifestKey: 'm', partKeys: [] },
    rowCount: 0,
    addedColumns: [],
    extractedAt: new Date().toISOString(),
  };
}

describe('skippingCancelledWork', () => {
  const handled: string[] = [];
  const dropped: string[] = [];
  const options: Options = {
    subject: PipelineSubjects.batchStaged,
    durableName: 'loader',
    concurrency: 1,
    guard: (payload): payload is BatchStaged => payload !== null,
    handle: async (event) => {
      handled.push(event.workId);
    },
  };
  const filtered = skippingCancelledWork(options, new Set(['cancelled-work']), (workId) => dropped.push(workId));

  beforeEach(() => {
    handled.length = 0;
    dropped.length = 0;
  });

  it('hands the message of live work to the handler', async () => {
    await filtered.handle(staged('live-work'), { deliveryCount: 1 });
    expect(handled).toEqual(['live-work']);
    expect(dropped).toEqual([]);
  });

  it('drops the message of cancelled work without working on it (the handler resolves, so it is acknowledged)', async () => {
    await expect(filtered.handle(staged('cancelled-work'), { deliveryCount: 1 })).resolves.toBeUndefined();
    expect(handled).toEqual([]);
    expect(dropped).toEqual(['cancelled-work']);
  });

  it('keeps every other option', () => {
    expect({ ...filtered, handle: undefined }).toEqual({ ...options, handle: undefined });
  });

  it('passes a handler failure on', async () => {
    const failing = skippingCancelledWork({ ...options, handle: () => Promise.reject(new Error('warehouse down')) }, new Set<string>(), () => undefined);
    await expect(failing.handle(staged('live-work'), { deliveryCount: 2 })).rejects.toThrow('warehouse down');
  });
});

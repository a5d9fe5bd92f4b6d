import { Portable, PipelineSubjects, type BatchStaged } from '@svc/contracts';
import { WorkAbortedError, type PipelineWorkerOptions } from '@svc/messaging';
import { runClassified } from '@svc/pipeline-runtime';
import { loggingFailures } from './failure-logging';

type Options = PipelineWorkerOptions<typeof PipelineSubjects.batchStaged>;

const staged: BatchStaged = {
  workId: 'w-1',
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
  extractedAt: '2024-01-02T00:00:00.000Z',
};

/** The loader's own call that failed: its frame comes first in the stack. */
function mergeBatch(): Promise<void> {
  return Promise.reject(Object.assign(new Error('could not connect: Server=dw;User Id=load;Password=S3cr3t!'), { code: 'ECONNRESET' }));
}

describe('loggingFailures', () => {
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const logger = {
    info: (message: string, fields: Record<string, unknown> = {}) => void lines.push({ level: 'info', message, fields }),
    warn: (message: string, fields: Record<string, unknown> = {}) => void lines.push({ level: 'warn', message, fields }),
  };
  const consumer = (handle: Options['handle']): Options =>
    loggingFailures<typeof PipelineSubjects.batchStaged>(
      { subject: PipelineSubjects.batchStaged, durableName: 'loader', concurrency: 1, guard: (payload): payload is BatchStaged => payload !== null, handle },
      logger,
    );

  beforeEach(() => {
    lines.length = 0;
  });

  it('logs a classified failure with its reason, the redacted detail, and the frames of the error that caused it', async () => {
    const options = consumer(() => runClassified(mergeBatch, { endpoint: 'Warehouse', table: '[public].[t]' }, async () => undefined));

    await expect(options.handle(staged, { deliveryCount: 2 })).rejects.toThrow(/^Warehouse: /);

    expect(lines).toEqual([
      {
        level: 'warn',
        message: 'work failed',
        fields: {
          subject: PipelineSubjects.batchStaged,
          delivery: 2,
          reason: expect.stringMatching(/^Warehouse: /) as unknown,
          detail: 'could not connect: Server=dw;User Id=load;Password=[redacted]',
          errorName: 'Error',
          code: 'ECONNRESET',
          wrappedIn: 'RetryableWorkError',
          where: expect.stringMatching(/^mergeBatch \(.*failure-logging\.spec\.ts:\d+:\d+\)/) as unknown,
        },
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('S3cr3t!');
  });

  it('logs a worker that is shutting down as work handed back, not as a failure', async () => {
    const options = consumer(() => Promise.reject(new WorkAbortedError()));

    await expect(options.handle(staged, { deliveryCount: 1 })).rejects.toBeInstanceOf(WorkAbortedError);

    expect(lines).toEqual([{ level: 'info', message: 'work handed back: the worker is shutting down', fields: { subject: PipelineSubjects.batchStaged, delivery: 1 } }]);
  });
});

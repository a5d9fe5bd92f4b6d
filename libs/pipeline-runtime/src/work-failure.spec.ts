import type { BatchDescriptor, PipelinePayloadOf, PipelineSubject } from '@svc/contracts';
import { guardWorkFailed } from '@svc/contracts';
import { reportBatchFailure } from './work-failure';

interface Published {
  subject: PipelineSubject;
  payload: unknown;
  msgId: string;
}

class RecordingPublisher {
  readonly published: Published[] = [];

  async publish<S extends PipelineSubject>(subject: S, payload: PipelinePayloadOf<S>, msgId: string): Promise<void> {
    this.published.push({ subject, payload, msgId });
  }
}

const batch: BatchDescriptor = {
  batchId: 'b-1',
  replicationId: 'r-1',
  epoch: 1,
  definition: { table: { schema: 'public', name: 'orders' }, columns: [], primaryKey: [], estimatedRows: 0 },
  body: { kind: 'changes', fromVersion: '1', toVersion: '2' },
};

describe('reportBatchFailure', () => {
  it.each([
    [{ message: 'bucket keys were rejected', retryable: false, scope: 'replication' as const }],
    [{ message: 'relation "public.orders" does not exist', retryable: false, scope: 'table' as const }],
    [{ message: 'failed 5 of 5 deliveries', retryable: true, scope: 'table' as const }],
  ])('publishes a valid WorkFailed carrying %o', async (failure) => {
    const publisher = new RecordingPublisher();
    await reportBatchFailure(publisher, { workId: 'w-1', batch }, 'load', failure);

    expect(publisher.published).toHaveLength(1);
    const [{ subject, payload, msgId }] = publisher.published;
    expect(subject).toBe('svc.pipeline.v1.work.failed');
    expect(msgId).toBe('w-1/b-1/failed');
    expect(guardWorkFailed(payload).ok).toBe(true);
    expect(payload).toMatchObject({
      workId: 'w-1',
      replicationId: 'r-1',
      table: { schema: 'public', name: 'orders' },
      stage: 'load',
      ...failure,
    });
  });
});

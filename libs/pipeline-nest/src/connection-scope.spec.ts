import { PipelineSubjects, type BatchStaged } from '@svc/contracts';
import { ConnectionGate, NestedConnectionAcquireError } from '@svc/engines';
import type { PipelineWorkerOptions } from '@svc/messaging';
import { inOwnConnectionScope, poolSizingsOf } from './connection-scope';

type Options = PipelineWorkerOptions<typeof PipelineSubjects.batchStaged>;

describe('inOwnConnectionScope', () => {
  const gate = new ConnectionGate({ owner: 'Warehouse', size: 4, waitMs: 1_000, sizeSetting: '' });
  const outcomes: string[] = [];
  /** A handler that holds a session and then asks the same pool for another: the pattern that deadlocked. */
  const options: Options = {
    subject: PipelineSubjects.batchStaged,
    durableName: 'loader',
    concurrency: 2,
    guard: (payload): payload is BatchStaged => payload !== null,
    handle: async () => {
      const session = await gate.checkout();
      try {
        (await gate.checkout()).release();
        outcomes.push('second connection given');
      } catch (error) {
        outcomes.push(error instanceof NestedConnectionAcquireError ? 'refused' : String(error));
      } finally {
        session.release();
      }
    },
  };

  it('handles each message in a scope of its own: two messages at once each get their session, and each is refused a second one', async () => {
    const scoped = inOwnConnectionScope(options);
    await Promise.all([scoped.handle({} as BatchStaged, { deliveryCount: 1 }), scoped.handle({} as BatchStaged, { deliveryCount: 1 })]);
    expect(outcomes).toEqual(['refused', 'refused']);
    expect(gate.inUse).toBe(0);
    // Without a scope (as before), nothing sees the nesting: the handler takes a second connection.
    outcomes.length = 0;
    await options.handle({} as BatchStaged, { deliveryCount: 1 });
    expect(outcomes).toEqual(['second connection given']);
  });
});

describe('poolSizingsOf', () => {
  it('sizes each role\'s pool from the settings and says, when busy, which settings change it', () => {
    const sizings = poolSizingsOf({ concurrency: 4, pools: { sourceConnections: 12, stagingConnections: 10, warehouseConnections: 8, waitMs: 60_000 } });
    expect(sizings.source).toEqual({
      maxConnections: 12,
      waitMs: 60_000,
      sizeSetting:
        "SOURCE_MAX_CONNECTIONS (now 12) sets the connections each worker instance keeps to it; WORKER_CONCURRENCY (now 4) and the replication's ParallelTablesLimit, the work sharing them; POOL_WAIT_SECONDS, how long a work waits for one.",
    });
    expect([sizings.staging?.maxConnections, sizings.warehouse?.maxConnections]).toEqual([10, 8]);
  });
});

import { join } from 'node:path';
import { typescriptWorker } from '@svc/testing';
import type { PoolTestReply, PoolTestTask } from '../testing/pool-test-worker';
import { WorkerPool, WorkerTaskAbandoned } from './worker-pool';

const TEST_WORKER = typescriptWorker(join(__dirname, '..', 'testing', 'pool-test-worker.ts'));

describe('WorkerPool', () => {
  let pool: WorkerPool<PoolTestTask, PoolTestReply>;

  beforeEach(async () => {
    pool = new WorkerPool(TEST_WORKER, { size: 2, taskTimeoutMs: 3000, maxHeapMb: 64 });
    await pool.ready();
  }, 30_000);

  afterEach(() => pool.close());

  it('answers each task from a thread of its own, not the caller’s', async () => {
    const replies = await Promise.all(['a', 'b', 'c', 'd'].map((value) => pool.run({ kind: 'echo', value })));
    expect(replies.map((reply) => reply.value)).toEqual(['a', 'b', 'c', 'd']);
    expect(replies.every((reply) => reply.threadId > 0)).toBe(true);
  });

  it('keeps the event loop free while its threads are busy', async () => {
    const busy = [pool.run({ kind: 'busy', ms: 1500 }), pool.run({ kind: 'busy', ms: 1500 })];
    const started = performance.now();
    await new Promise((done) => setTimeout(done, 50));
    // Generous against a loaded machine: the timer was due after 50 ms; run inline, the tasks would hold it 3 s.
    expect(performance.now() - started).toBeLessThan(1000);
    await Promise.all(busy);
  });

  it('queues tasks beyond its size and runs them as threads free up', async () => {
    const replies = await Promise.all(Array.from({ length: 6 }, (_, index) => pool.run({ kind: 'busy', ms: 20 * index })));
    expect(replies.map((reply) => reply.value)).toEqual(Array(6).fill('done'));
    expect(new Set(replies.map((reply) => reply.threadId)).size).toBe(2);
  });

  it('passes a task’s exception on as its failure and keeps the thread', async () => {
    await expect(pool.run({ kind: 'throw', message: 'no good' })).rejects.toThrow('no good');
    await expect(pool.run({ kind: 'echo', value: 'still here' })).resolves.toMatchObject({ value: 'still here' });
  });

  it('abandons a task that runs past its time limit and replaces the thread', async () => {
    const slow = new WorkerPool<PoolTestTask, PoolTestReply>(TEST_WORKER, { size: 1, taskTimeoutMs: 300, maxHeapMb: 64 });
    try {
      await slow.ready();
      const first = (await slow.run({ kind: 'echo', value: 'x' })).threadId;
      await expect(slow.run({ kind: 'busy', ms: 60_000 })).rejects.toEqual(new WorkerTaskAbandoned('timeout'));
      const next = await slow.run({ kind: 'echo', value: 'after' });
      expect(next.value).toBe('after');
      expect(next.threadId).not.toBe(first);
    } finally {
      await slow.close();
    }
  }, 30_000);

  it.each([
    ['exits', { kind: 'exit' } as const],
    ['runs out of memory', { kind: 'exhaust-memory' } as const],
  ])('abandons the task of a thread that %s and replaces the thread', async (_, task) => {
    await expect(pool.run(task)).rejects.toEqual(new WorkerTaskAbandoned('thread-died'));
    const replies = await Promise.all([pool.run({ kind: 'echo', value: '1' }), pool.run({ kind: 'echo', value: '2' })]);
    expect(replies.map((reply) => reply.value)).toEqual(['1', '2']);
  }, 30_000);

  it('refuses to start, without retrying, when the thread’s script cannot load', async () => {
    const broken = new WorkerPool<PoolTestTask, PoolTestReply>({ script: 'throw new Error("cannot load")', options: { eval: true } }, { size: 2, taskTimeoutMs: 1000, maxHeapMb: 64 });
    await expect(broken.ready()).rejects.toThrow('the worker thread could not start: cannot load');
    await expect(broken.run({ kind: 'echo', value: 'x' })).rejects.toThrow('could not start');
    await broken.close();
  });

  it('fails running and queued tasks when closed, and refuses new ones', async () => {
    const tasks = [pool.run({ kind: 'busy', ms: 5000 }), pool.run({ kind: 'busy', ms: 5000 }), pool.run({ kind: 'echo', value: 'queued' })];
    const outcomes = Promise.allSettled(tasks);
    await pool.close();
    for (const outcome of await outcomes) expect(outcome).toEqual({ status: 'rejected', reason: new Error('the worker pool is closed') });
    await expect(pool.run({ kind: 'echo', value: 'late' })).rejects.toThrow('the worker pool is closed');
  });
});

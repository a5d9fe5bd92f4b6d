// A pool thread for worker-pool.spec.ts: each task says what the thread should do.
import { threadId } from 'node:worker_threads';
import { serveWorkerTasks } from '../decode/worker-tasks';

export type PoolTestTask =
  | { kind: 'echo'; value: string }
  | { kind: 'busy'; ms: number }
  | { kind: 'throw'; message: string }
  | { kind: 'exit' }
  | { kind: 'exhaust-memory' };

export interface PoolTestReply {
  value: string;
  threadId: number;
}

function handle(task: PoolTestTask): PoolTestReply {
  switch (task.kind) {
    case 'echo':
      return { value: task.value, threadId };
    case 'busy': {
      // Holds this thread the way a long parse would: synchronously.
      const until = Date.now() + task.ms;
      while (Date.now() < until);
      return { value: 'done', threadId };
    }
    case 'throw':
      throw new Error(task.message);
    case 'exit':
      process.exit(3);
    // falls through: process.exit does not return
    case 'exhaust-memory': {
      const hoard: number[][] = [];
      for (;;) hoard.push(new Array<number>(1_000_000).fill(hoard.length));
    }
  }
}

serveWorkerTasks(handle);

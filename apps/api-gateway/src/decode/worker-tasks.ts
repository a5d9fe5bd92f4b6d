import { parentPort } from 'node:worker_threads';

/** What a pool thread sends back: once `ready` after loading, then one `done` or `failed` per task. */
export type WorkerMessage<Reply> = { kind: 'ready' } | { kind: 'done'; value: Reply } | { kind: 'failed'; error: string };

/** Run inside a pool thread: answers every task with `handle`, one at a time. */
export function serveWorkerTasks<Request, Reply>(handle: (request: Request) => Reply): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorkerTasks runs inside a worker thread');
  const reply = (message: WorkerMessage<Reply>) => port.postMessage(message);
  port.on('message', (request: Request) => {
    try {
      reply({ kind: 'done', value: handle(request) });
    } catch (error) {
      reply({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  });
  reply({ kind: 'ready' });
}

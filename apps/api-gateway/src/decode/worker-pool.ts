import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { WorkerMessage } from './worker-tasks';

/** What a pool's threads run: a script path, or (with `options.eval`) the script's code. */
export interface WorkerSource {
  script: string;
  options?: WorkerOptions;
}

export interface WorkerPoolOptions {
  size: number;
  /** A task running longer than this has its thread terminated (and replaced) and is abandoned. */
  taskTimeoutMs: number;
  /** Heap limit of each thread: a task that needs more kills only its own thread. */
  maxHeapMb: number;
}

/** A task the pool gave up on: it ran past the timeout, or its thread died (out of memory, crashed). */
export class WorkerTaskAbandoned extends Error {
  constructor(readonly reason: 'timeout' | 'thread-died') {
    super(reason === 'timeout' ? 'the task ran past its time limit' : 'the worker thread running the task died');
    this.name = 'WorkerTaskAbandoned';
  }
}

interface Task<Request, Reply> {
  request: Request;
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

interface Slot<Request, Reply> {
  worker: Worker;
  ready: boolean;
  task?: Task<Request, Reply>;
  timer?: NodeJS.Timeout;
  abandoned?: WorkerTaskAbandoned;
}

/**
 * A fixed number of worker threads, each running one task at a time from a shared queue, so that work that
 * can take long on hostile input never holds the event loop. A thread that times out or dies is replaced.
 * The script must call `serveWorkerTasks` (worker-tasks.ts).
 */
export class WorkerPool<Request, Reply> {
  private readonly slots = new Set<Slot<Request, Reply>>();
  private readonly queue: Task<Request, Reply>[] = [];
  private closed = false;
  /** Set when a thread died before it was ready: the script itself is broken, and replacing it would only loop. */
  private broken: Error | undefined;
  private readonly readyWaiters: { resolve(): void; reject(error: Error): void }[] = [];

  constructor(
    private readonly source: WorkerSource,
    private readonly options: WorkerPoolOptions,
  ) {
    for (let index = 0; index < options.size; index += 1) this.spawn();
  }

  /** Resolves once every thread has loaded its script; rejects when one could not. */
  ready(): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    if ([...this.slots].every((slot) => slot.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  run(request: Request): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the worker pool is closed'));
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  private spawn(): void {
    const worker = new Worker(this.source.script, {
      ...this.source.options,
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
    });
    // Idle threads must not keep the process alive.
    worker.unref();
    const slot: Slot<Request, Reply> = { worker, ready: false };
    this.slots.add(slot);
    worker.on('message', (message: WorkerMessage<Reply>) => this.received(slot, message));
    worker.on('error', (error) => this.lost(slot, error));
    worker.on('exit', (code) => this.lost(slot, new Error(`worker thread exited with code ${code}`)));
  }

  private received(slot: Slot<Request, Reply>, message: WorkerMessage<Reply>): void {
    if (message.kind === 'ready') {
      slot.ready = true;
      if ([...this.slots].every((each) => each.ready)) for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
      this.dispatch();
      return;
    }
    const task = this.finish(slot);
    if (!task) return;
    if (message.kind === 'done') task.resolve(message.value);
    else task.reject(new Error(message.error));
    this.dispatch();
  }

  /** The slot's thread errored or exited: its task is abandoned and a new thread takes its place. */
  private lost(slot: Slot<Request, Reply>, error: Error): void {
    if (!this.slots.delete(slot)) return;
    const task = this.finish(slot);
    if (this.closed) {
      task?.reject(new Error('the worker pool is closed'));
      return;
    }
    task?.reject(slot.abandoned ?? new WorkerTaskAbandoned('thread-died'));
    if (!slot.ready) {
      this.broken = new Error(`the worker thread could not start: ${error.message}`);
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(this.broken);
      for (const queued of this.queue.splice(0)) queued.reject(this.broken);
      return;
    }
    this.spawn();
  }

  private finish(slot: Slot<Request, Reply>): Task<Request, Reply> | undefined {
    const task = slot.task;
    clearTimeout(slot.timer);
    slot.task = undefined;
    slot.timer = undefined;
    return task;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.task || slot.abandoned) continue;
      const task = this.queue.shift() as Task<Request, Reply>;
      slot.task = task;
      slot.timer = setTimeout(() => {
        slot.abandoned = new WorkerTaskAbandoned('timeout');
        void slot.worker.terminate();
      }, this.options.taskTimeoutMs);
      slot.worker.postMessage(task.request);
    }
  }
}

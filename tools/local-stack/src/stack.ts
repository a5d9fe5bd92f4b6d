import type { ChildProcess } from 'node:child_process';
import type { ServiceName } from '@svc/contracts';
import type { EmbeddedS3 } from './embedded-s3';
import { stopChild } from './stop-child';

/** npm start's own nats-server: stopped after the services, so none of them sees the bus go first. */
export interface StackBus {
  stop(): Promise<void>;
}

/** What the local stack runs, and how to stop all of it. */
export class Stack {
  private readonly children = new Map<ServiceName | 'demo', ChildProcess>();
  private s3: EmbeddedS3 | undefined;
  private bus: StackBus | undefined;
  private stopping = false;
  private readonly pending = new Set<NodeJS.Timeout>();

  get isStopping(): boolean {
    return this.stopping;
  }

  addS3(s3: EmbeddedS3): void {
    this.s3 = s3;
  }

  addBus(bus: StackBus): void {
    this.bus = bus;
  }

  addChild(service: ServiceName | 'demo', child: ChildProcess): void {
    this.children.set(service, child);
  }

  /** Runs `task` after `delayMs` unless the stack stops first (a service's restart). */
  schedule(task: () => void, delayMs: number): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      if (!this.stopping) task();
    }, delayMs);
    this.pending.add(timer);
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    await Promise.all([...this.children.values()].map((child) => stopChild(child)));
    await this.bus?.stop();
    await this.s3?.close();
  }
}

/** What a frame queue holds back when it is full: a paused source sends nothing more (TCP backpressure to the server). */
export interface FrameFlow {
  pause(): void;
  resume(): void;
  isPaused(): boolean;
}

export interface FrameLimits {
  /** Bytes of frames held before the flow is paused. */
  bytes: number;
  /** Frames held before the flow is paused, whatever their size. */
  frames: number;
}

/**
 * Frames received and not yet read, bounded by bytes and by count: at either limit the flow is paused, and resumed once
 * the queue is below half of both. The count matters for small frames: a row change is a frame of ~100-200 bytes, and
 * 16 MiB of them is ~100,000 objects held long enough to reach V8's old generation, which then grew to ~115 MB between
 * collections while one big transaction was relayed (the extractor's peak RSS 287 MiB; 212 MiB with 4,096 frames).
 */
export class FrameQueue {
  /** From `head` on: shifting a long array costs its length each time. */
  private frames: Buffer[] = [];
  private head = 0;
  private bytes = 0;

  constructor(
    private readonly limits: FrameLimits,
    private readonly flow: FrameFlow,
  ) {}

  get length(): number {
    return this.frames.length - this.head;
  }

  push(frame: Buffer): void {
    this.frames.push(frame);
    this.bytes += frame.length;
    if (this.bytes >= this.limits.bytes || this.length >= this.limits.frames) this.flow.pause();
  }

  shift(): Buffer | undefined {
    const frame = this.frames[this.head];
    if (frame === undefined) return undefined;
    this.head += 1;
    if (this.head === this.frames.length) {
      this.frames = [];
      this.head = 0;
    } else if (this.head >= 4096 && this.head * 2 >= this.frames.length) {
      this.frames = this.frames.slice(this.head);
      this.head = 0;
    }
    this.bytes -= frame.length;
    if (this.flow.isPaused() && this.bytes < this.limits.bytes / 2 && this.length < this.limits.frames / 2) this.flow.resume();
    return frame;
  }
}

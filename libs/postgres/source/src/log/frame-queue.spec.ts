import { FrameQueue, type FrameFlow } from './frame-queue';

/** A flow that records whether it is paused, as a Duplex's readable side does. */
function recordingFlow(): FrameFlow & { paused: boolean } {
  return {
    paused: false,
    pause() {
      this.paused = true;
    },
    resume() {
      this.paused = false;
    },
    isPaused() {
      return this.paused;
    },
  };
}

describe('FrameQueue', () => {
  it('pauses at its frame count however small the frames, and resumes below half of it', () => {
    const flow = recordingFlow();
    const queue = new FrameQueue({ bytes: 1024 * 1024, frames: 100 }, flow);
    for (let index = 0; index < 99; index += 1) queue.push(Buffer.alloc(150));
    expect(flow.paused).toBe(false);
    queue.push(Buffer.alloc(150));
    expect(flow.paused).toBe(true);
    for (let index = 0; index < 50; index += 1) queue.shift();
    expect({ length: queue.length, paused: flow.paused }).toEqual({ length: 50, paused: true });
    queue.shift();
    expect({ length: queue.length, paused: flow.paused }).toEqual({ length: 49, paused: false });
  });

  it('pauses at its byte limit with few large frames, and resumes once below half of both limits', () => {
    const flow = recordingFlow();
    const queue = new FrameQueue({ bytes: 1000, frames: 100 }, flow);
    queue.push(Buffer.alloc(600));
    expect(flow.paused).toBe(false);
    queue.push(Buffer.alloc(400));
    expect(flow.paused).toBe(true);
    expect(queue.shift()?.length).toBe(600);
    expect(flow.paused).toBe(false);
  });

  it('gives frames back in order, across the compaction of a long queue', () => {
    const queue = new FrameQueue({ bytes: Number.MAX_SAFE_INTEGER, frames: Number.MAX_SAFE_INTEGER }, recordingFlow());
    const taken: number[] = [];
    for (let index = 0; index < 10_000; index += 1) {
      queue.push(Buffer.from([index % 256]));
      if (index % 3 === 0) taken.push(queue.shift()?.[0] ?? -1);
    }
    for (let frame = queue.shift(); frame !== undefined; frame = queue.shift()) taken.push(frame[0] ?? -1);
    expect(taken).toEqual(Array.from({ length: 10_000 }, (_, index) => index % 256));
    expect(queue.length).toBe(0);
  });
});

import { ExitCode } from '../exit-codes';
import { SHOW_CURSOR } from './frame-writer';
import { PLAIN_FRAME_WIDTH, frameLayout, runDescribeWatch, type WatchIo } from './run-describe-watch';

const SETTINGS = { endpoint: 'http://gw:8080', region: 'us-east-1', credentials: { accessKeyId: 'AK', secretKey: 'secret' } };

describe('frameLayout', () => {
  it('uses the terminal size less one column and one row, and plain frames elsewhere', () => {
    expect(frameLayout({ isTty: true, columns: () => 120, rows: () => 40 })).toEqual({ width: 119, maxLines: 39, unicodeBars: true });
    expect(frameLayout({ isTty: true, columns: () => undefined, rows: () => undefined })).toEqual({ width: 79, unicodeBars: true });
    expect(frameLayout({ isTty: true, columns: () => 0, rows: () => 0 })).toEqual({ width: 79, unicodeBars: true });
    expect(frameLayout({ isTty: false, columns: () => 120, rows: () => 40 })).toEqual({ width: PLAIN_FRAME_WIDTH, unicodeBars: false });
  });
});

describe('runDescribeWatch', () => {
  it('turns Ctrl-C into exit 130 with the cursor restored, and stops listening for it afterwards', async () => {
    let interrupt: (() => void) | undefined;
    let stdout = '';
    const io: WatchIo = {
      terminal: { isTty: true, columns: () => 80, rows: () => 24 },
      now: () => new Date('2026-11-23T10:00:00Z'),
      sleep: async () => interrupt?.(),
      onInterrupt: (handler) => {
        interrupt = handler;
        return () => (interrupt = undefined);
      },
      writeStdout: (text) => (stdout += text),
      writeStderr: () => undefined,
      send: async () => ({
        kind: 'response',
        status: 200,
        headers: {},
        body: Buffer.from(JSON.stringify({ replicationId: 'r-1', status: 'Running', tables: [{ name: 't', phase: 'Seeding' }] })),
      }),
    };
    await expect(runDescribeWatch(io, SETTINGS, { replicationId: 'r-1', intervalSeconds: 2, untilTracking: true })).resolves.toBe(ExitCode.Interrupted);
    expect(stdout.endsWith(SHOW_CURSOR)).toBe(true);
    expect(interrupt).toBeUndefined();
  });

  /** A terminal-less io answering `phases` in turn (the last one for ever), interrupted after `polls` calls. */
  function scriptedIo(phases: string[], polls: number): { io: WatchIo; output: () => string; calls: () => number } {
    let interrupt: (() => void) | undefined;
    let stdout = '';
    let calls = 0;
    const io: WatchIo = {
      terminal: { isTty: false, columns: () => undefined, rows: () => undefined },
      now: () => new Date('2026-11-23T10:00:00Z'),
      sleep: async () => {
        if (calls >= polls) interrupt?.();
      },
      onInterrupt: (handler) => {
        interrupt = handler;
        return () => (interrupt = undefined);
      },
      writeStdout: (text) => (stdout += text),
      writeStderr: (text) => (stdout += text),
      send: async () => {
        const phase = phases[Math.min(calls, phases.length - 1)];
        calls += 1;
        const body = { replicationId: 'r-1', status: 'Running', tables: [{ name: 't', phase }] };
        return { kind: 'response', status: 200, headers: {}, body: Buffer.from(JSON.stringify(body)) };
      },
    };
    return { io, output: () => stdout, calls: () => calls };
  }

  it('follows a replication after every table is tracking, until Ctrl-C (issue 20: the live demo goes on)', async () => {
    const watch = scriptedIo(['Seeding', 'Tracking'], 4);
    await expect(runDescribeWatch(watch.io, SETTINGS, { replicationId: 'r-1', intervalSeconds: 2, untilTracking: false })).resolves.toBe(ExitCode.Interrupted);
    expect(watch.calls()).toBe(4);
    expect(watch.output()).toContain('Every table is tracking (1 table). Following changes; Ctrl-C to stop.');
  });

  it('keeps following a failed table, saying so, instead of ending', async () => {
    const watch = scriptedIo(['Error'], 3);
    await expect(runDescribeWatch(watch.io, SETTINGS, { replicationId: 'r-1', intervalSeconds: 2, untilTracking: false })).resolves.toBe(ExitCode.Interrupted);
    expect(watch.calls()).toBe(3);
    expect(watch.output()).toContain('still watching (Ctrl-C to stop)');
  });

  it('ends with --until-tracking once every table is tracking, for scripts', async () => {
    const watch = scriptedIo(['Seeding', 'Tracking'], 10);
    await expect(runDescribeWatch(watch.io, SETTINGS, { replicationId: 'r-1', intervalSeconds: 2, untilTracking: true })).resolves.toBe(ExitCode.Ok);
    expect(watch.calls()).toBe(2);
  });
});

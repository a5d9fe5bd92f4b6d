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
    await expect(runDescribeWatch(io, SETTINGS, { replicationId: 'r-1', intervalSeconds: 2 })).resolves.toBe(ExitCode.Interrupted);
    expect(stdout.endsWith(SHOW_CURSOR)).toBe(true);
    expect(interrupt).toBeUndefined();
  });
});

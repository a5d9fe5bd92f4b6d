import { ExitCode } from '../exit-codes';
import { HIDE_CURSOR, SHOW_CURSOR, inPlaceFrameWriter, plainFrameWriter } from './frame-writer';
import type { ReplicationSnapshot, TableSnapshot } from './replication-snapshot';
import { watchReplication, type PollOutcome, type WatchDependencies } from './watch-loop';

const START = Date.parse('2026-11-23T10:00:00Z');

function table(phase: string, overrides: Partial<TableSnapshot> = {}): TableSnapshot {
  return { name: '[public].[orders]', phase, rowsSeeded: 0, rowsEstimated: 100, lagSeconds: null, lastError: null, inFlightSeconds: null, ...overrides };
}

function answer(tables: TableSnapshot[], overrides: Partial<ReplicationSnapshot> = {}): PollOutcome {
  return { kind: 'snapshot', snapshot: { replicationId: 'r-1', replicationName: 'dw', status: 'Running', lastError: null, tables, alerts: [], ...overrides } };
}

interface Harness {
  deps: WatchDependencies;
  stdout: string;
  stderr: string;
  polls: number;
  sleeps: number[];
  controller: AbortController;
}

/**
 * A fake world: polls answer from `script` in turn (the last repeats), sleeping moves the fake clock on,
 * and `onSleep` may act (e.g. press Ctrl-C) instead of returning at once.
 */
function harness(script: PollOutcome[], options: { tty?: boolean; onSleep?: (h: Harness) => Promise<void> } = {}): Harness {
  let clock = START;
  const controller = new AbortController();
  const write = (text: string) => (h.stdout += text);
  const h: Harness = {
    stdout: '',
    stderr: '',
    polls: 0,
    sleeps: [],
    controller,
    deps: {
      poll: async () => script[Math.min(h.polls++, script.length - 1)],
      now: () => new Date(clock),
      sleep: async (ms) => {
        h.sleeps.push(ms);
        clock += ms;
        if (options.onSleep !== undefined) await options.onSleep(h);
      },
      frames: options.tty === true ? inPlaceFrameWriter(write) : plainFrameWriter(write),
      layout: () => ({ width: 100, unicodeBars: options.tty === true }),
      writeStdout: write,
      writeStderr: (text) => (h.stderr += text),
      interrupted: controller.signal,
    },
  };
  return h;
}

describe('watchReplication', () => {
  it('polls at the interval, one frame per answer, until every table is tracking; then exit 0 after a final frame', async () => {
    const h = harness([
      answer([table('Pending')]),
      answer([table('Seeding', { rowsSeeded: 50, inFlightSeconds: 5 })]),
      answer([table('Tracking', { rowsSeeded: 100, lagSeconds: 2 })]),
    ]);
    await expect(watchReplication(h.deps, 2000)).resolves.toBe(ExitCode.Ok);
    expect(h.polls).toBe(3);
    expect(h.sleeps).toEqual([2000, 2000]);
    const frames = h.stdout.split('\n\n');
    expect(frames).toEqual([
      'Replication dw  Running  0 of 1 tables tracking  10:00:00 UTC\n  [public].[orders]  Pending    waiting to seed',
      expect.stringContaining('10:00:02 UTC\n  [public].[orders]  Seeding    [###############---------------] 50%  50/100 rows  10 rows/s  ETA 5s'),
      'Replication dw  Running  1 of 1 tables tracking  10:00:04 UTC\n  [public].[orders]  Tracking   lag 2s\nEvery table is tracking (1 table).\n',
    ]);
    expect(h.stderr).toBe('');
  });

  it('on a terminal redraws in place and shows the cursor again at the end', async () => {
    const h = harness([answer([table('Seeding')]), answer([table('Tracking')])], { tty: true });
    await expect(watchReplication(h.deps, 2000)).resolves.toBe(ExitCode.Ok);
    expect(h.stdout.startsWith(HIDE_CURSOR)).toBe(true);
    expect(h.stdout).toContain('\r\u001B[2A');
    expect(h.stdout).toMatch(/\u001B\[\?25hEvery table is tracking \(1 table\)\.\n$/);
  });

  it('exits 1 with the reason when a table fails', async () => {
    const h = harness([answer([table('Seeding')]), answer([table('Error', { lastError: 'COPY failed:\nvalue too long \u001B[31m' })])]);
    await expect(watchReplication(h.deps, 1000)).resolves.toBe(ExitCode.Failed);
    expect(h.stderr).toBe('Error: table [public].[orders] failed: COPY failed: value too long \\x1B[31m\n');
    expect(h.stdout).toContain('[public].[orders]  Error      failed  error: COPY failed: value too long \\x1B[31m');
  });

  it('exits 1 when the replication has Failed', async () => {
    const h = harness([answer([table('Seeding')], { status: 'Failed', lastError: 'warehouse refused the credentials' })]);
    await expect(watchReplication(h.deps, 1000)).resolves.toBe(ExitCode.Failed);
    expect(h.stderr).toBe('Error: replication dw failed: warehouse refused the credentials\n');
  });

  it('shows a transient failure under the last frame and keeps polling', async () => {
    const h = harness([
      answer([table('Seeding')]),
      { kind: 'transient', message: 'HTTP 503 (request 9): registry not answering', unreachable: false },
      { kind: 'transient', message: 'cannot reach http://127.0.0.1:8080: connection refused', unreachable: true },
      answer([table('Tracking')]),
    ]);
    await expect(watchReplication(h.deps, 2000)).resolves.toBe(ExitCode.Ok);
    const frames = h.stdout.split('\n\n');
    expect(frames[1]).toMatch(/Seeding.*\n! HTTP 503 \(request 9\): registry not answering; trying again every 2 s$/);
    expect(frames[2]).toMatch(/\n! cannot reach http:\/\/127\.0\.0\.1:8080: connection refused; trying again every 2 s$/);
    expect(frames[3]).not.toContain('!');
  });

  it('waits out a 5xx before the first answer, but a refused connection then ends it with exit 2', async () => {
    const busy = harness([{ kind: 'transient', message: 'HTTP 503: registry not answering', unreachable: false }, answer([table('Tracking')])]);
    await expect(watchReplication(busy.deps, 1000)).resolves.toBe(ExitCode.Ok);
    expect(busy.stdout).toContain('Waiting for the first answer  10:00:00 UTC\n! HTTP 503: registry not answering');

    const refused = harness([{ kind: 'transient', message: 'cannot reach http://127.0.0.1:9: connection refused', unreachable: true }]);
    await expect(watchReplication(refused.deps, 1000)).resolves.toBe(ExitCode.Unreachable);
    expect(refused.stderr).toBe('Error: cannot reach http://127.0.0.1:9: connection refused\n');
    expect(refused.stdout).toBe('');
  });

  it('ends on a fatal answer with its report and exit code, leaving the frames drawn so far', async () => {
    const h = harness([answer([table('Seeding')]), { kind: 'fatal', exitCode: ExitCode.Failed, stderr: 'Error: HTTP 404 (request 3)\n  - no such replication\n' }], {
      tty: true,
    });
    await expect(watchReplication(h.deps, 1000)).resolves.toBe(ExitCode.Failed);
    expect(h.stderr).toBe('Error: HTTP 404 (request 3)\n  - no such replication\n');
    expect(h.stdout.endsWith(SHOW_CURSOR)).toBe(true);
  });

  it('on Ctrl-C while it sleeps: exit 130 with the cursor shown again', async () => {
    const h = harness([answer([table('Seeding')])], {
      tty: true,
      onSleep: async (self) => self.controller.abort(),
    });
    await expect(watchReplication(h.deps, 1000)).resolves.toBe(ExitCode.Interrupted);
    expect(h.polls).toBe(1);
    expect(h.stdout.endsWith(SHOW_CURSOR)).toBe(true);
  });

  it('on Ctrl-C during a call that does not answer: exit 130 at once, the call is told to give up', async () => {
    const h = harness([]);
    let callSignal: AbortSignal | undefined;
    h.deps.frames = inPlaceFrameWriter((text) => (h.stdout += text));
    h.deps.frames.draw(['an earlier frame']);
    h.deps.poll = (signal) => {
      callSignal = signal;
      return new Promise(() => undefined);
    };
    const watching = watchReplication(h.deps, 1000);
    h.controller.abort();
    await expect(watching).resolves.toBe(ExitCode.Interrupted);
    expect(callSignal?.aborted).toBe(true);
    expect(h.stdout.endsWith(SHOW_CURSOR)).toBe(true);
  });
});

import { ExitCode } from '../exit-codes';
import type { FrameWriter } from './frame-writer';
import { renderFrame, type FrameLayout } from './render-frame';
import type { ReplicationSnapshot } from './replication-snapshot';
import { oneLineForTerminal } from './terminal-text';
import { watchVerdict } from './watch-verdict';

/** One Describe call, classified for the watch. */
export type PollOutcome =
  | { kind: 'snapshot'; snapshot: ReplicationSnapshot }
  /** Shown under the last frame while polling goes on (a 5xx, a timeout, a refused connection). */
  | { kind: 'transient'; message: string; unreachable: boolean }
  /** Ends the watch the way a plain `svc describe` would end (a 4xx such as 403 or 404). */
  | { kind: 'fatal'; exitCode: ExitCode; stderr: string };

export interface WatchDependencies {
  poll(signal: AbortSignal): Promise<PollOutcome>;
  now(): Date;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  frames: FrameWriter;
  /** Asked before every frame, so a resized terminal is followed. */
  layout(): FrameLayout;
  writeStdout(text: string): void;
  writeStderr(text: string): void;
  /** Aborted by Ctrl-C. */
  interrupted: AbortSignal;
}

const INTERRUPTED = Symbol('interrupted');

function whenAborted(signal: AbortSignal): Promise<typeof INTERRUPTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(INTERRUPTED);
    else signal.addEventListener('abort', () => resolve(INTERRUPTED), { once: true });
  });
}

function retryNotice(message: string, intervalMs: number): string {
  return `${message}; trying again every ${intervalMs / 1000} s`;
}

function settledSummary(snapshot: ReplicationSnapshot): string {
  const untracked = snapshot.tables.filter((table) => table.phase === 'Untracked').length;
  const note = untracked > 0 ? `, ${untracked} of them untracked: no primary key, reseeded on schedule` : '';
  const count = snapshot.tables.length;
  return `Every table is tracking (${count} ${count === 1 ? 'table' : 'tables'}${note}).`;
}

function followNotice(verdict: ReturnType<typeof watchVerdict>, snapshot: ReplicationSnapshot): string | undefined {
  switch (verdict.kind) {
    case 'waiting':
      return undefined;
    case 'settled':
      return `${settledSummary(snapshot)} Following changes; Ctrl-C to stop.`;
    case 'failed':
      return `${oneLineForTerminal(verdict.message)}; still watching (Ctrl-C to stop)`;
  }
}

/**
 * `follow` watches a live replication until Ctrl-C: a settled or failed state is shown under the frame and polling
 * goes on (tables go on changing, a failed table may be started again). `until-tracking` is for scripts: it ends when
 * every table is tracking (0) or the replication or a table has failed (1).
 */
export type WatchEnd = 'follow' | 'until-tracking';

/**
 * Polls Describe every `intervalMs` and draws a frame after each answer, until Ctrl-C (130), a call fails in a way
 * polling cannot mend, or — with `until-tracking` — every table is tracking (0) or something failed (1). A refused
 * connection before the first answer ends it like `svc describe` would (2): the endpoint is likely wrong.
 */
export async function watchReplication(deps: WatchDependencies, intervalMs: number, end: WatchEnd = 'until-tracking'): Promise<ExitCode> {
  const interrupted = whenAborted(deps.interrupted);
  let snapshot: ReplicationSnapshot | undefined;
  const draw = (notice?: string) =>
    deps.frames.draw(renderFrame({ snapshot, observedAt: deps.now(), ...(notice !== undefined && { notice }) }, deps.layout()));
  try {
    for (;;) {
      const outcome = await Promise.race([deps.poll(deps.interrupted), interrupted]);
      if (outcome === INTERRUPTED) return ExitCode.Interrupted;
      switch (outcome.kind) {
        case 'fatal':
          deps.frames.finish();
          deps.writeStderr(outcome.stderr);
          return outcome.exitCode;
        case 'transient':
          if (snapshot === undefined && outcome.unreachable) {
            deps.frames.finish();
            deps.writeStderr(`Error: ${oneLineForTerminal(outcome.message)}\n`);
            return ExitCode.Unreachable;
          }
          draw(retryNotice(outcome.message, intervalMs));
          break;
        case 'snapshot': {
          snapshot = outcome.snapshot;
          const verdict = watchVerdict(snapshot);
          if (end === 'follow') {
            draw(followNotice(verdict, snapshot));
            break;
          }
          draw();
          if (verdict.kind === 'settled') {
            deps.frames.finish();
            deps.writeStdout(`${settledSummary(snapshot)}\n`);
            return ExitCode.Ok;
          }
          if (verdict.kind === 'failed') {
            deps.frames.finish();
            deps.writeStderr(`Error: ${oneLineForTerminal(verdict.message)}\n`);
            return ExitCode.Failed;
          }
          break;
        }
      }
      await deps.sleep(intervalMs, deps.interrupted);
      if (deps.interrupted.aborted) return ExitCode.Interrupted;
    }
  } finally {
    // Ctrl-C and unexpected errors too: never leave the terminal without its cursor.
    deps.frames.finish();
  }
}

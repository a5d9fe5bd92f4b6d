import type { ClientSettings } from '../credentials/client-settings';
import type { ExitCode } from '../exit-codes';
import type { SendOperationInput, SendOutcome } from '../http/send-operation';
import { describePoller } from './describe-poll';
import { inPlaceFrameWriter, plainFrameWriter } from './frame-writer';
import type { FrameLayout } from './render-frame';
import { watchReplication } from './watch-loop';

/** What the watch needs to know of stdout. */
export interface StdoutTerminal {
  isTty: boolean;
  /** Current size; undefined when unknown. */
  columns(): number | undefined;
  rows(): number | undefined;
}

/** The part of `svc`'s outside world the watch uses; main wires the process, tests fakes. */
export interface WatchIo {
  terminal: StdoutTerminal;
  now(): Date;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls `handler` on Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  writeStdout(chunk: string): void;
  writeStderr(text: string): void;
  send(input: SendOperationInput): Promise<SendOutcome>;
}

export interface DescribeWatchRequest {
  replicationId: string;
  intervalSeconds: number;
  /** End when every table is tracking or on a failure, instead of following until Ctrl-C. */
  untilTracking: boolean;
}

/** Frames in logs and pipes are cut at this width: wide enough for most errors, narrow enough to read. */
export const PLAIN_FRAME_WIDTH = 160;
const FALLBACK_TTY_COLUMNS = 80;

/** A size the terminal reports; 0 (as some pseudo-terminals do) counts as unknown. */
function known(size: number | undefined): number | undefined {
  return size !== undefined && size > 0 ? size : undefined;
}

export function frameLayout(terminal: StdoutTerminal): FrameLayout {
  if (!terminal.isTty) return { width: PLAIN_FRAME_WIDTH, unicodeBars: false };
  const rows = known(terminal.rows());
  // One column and one row short of the screen: a full last column or row would make the terminal scroll or wrap.
  return {
    width: Math.max(20, (known(terminal.columns()) ?? FALLBACK_TTY_COLUMNS) - 1),
    ...(rows !== undefined && { maxLines: Math.max(3, rows - 1) }),
    unicodeBars: true,
  };
}

/** `svc describe --replication-id ID --watch`: redraws the replication's tables until Ctrl-C (or, asked, until every one is tracking). */
export async function runDescribeWatch(io: WatchIo, settings: ClientSettings, request: DescribeWatchRequest): Promise<ExitCode> {
  const interruption = new AbortController();
  const stopListening = io.onInterrupt(() => interruption.abort());
  const write = (text: string) => io.writeStdout(text);
  try {
    return await watchReplication(
      {
        poll: describePoller((input) => io.send(input), settings, request.replicationId),
        now: () => io.now(),
        sleep: (ms, signal) => io.sleep(ms, signal),
        frames: io.terminal.isTty ? inPlaceFrameWriter(write) : plainFrameWriter(write),
        layout: () => frameLayout(io.terminal),
        writeStdout: write,
        writeStderr: (text) => io.writeStderr(text),
        interrupted: interruption.signal,
      },
      request.intervalSeconds * 1000,
      request.untilTracking ? 'until-tracking' : 'follow',
    );
  } finally {
    stopListening();
  }
}

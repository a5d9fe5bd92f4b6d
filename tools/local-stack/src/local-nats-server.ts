import type { ChildProcess } from 'node:child_process';
import type { LocalBus } from './local-bus';
import { RestartPolicy } from './restart-policy';
import { stopChild } from './stop-child';

/** Starts a process; its stderr must be piped (the server says there when it is ready). */
export type LaunchProcess = (command: string, args: readonly string[]) => ChildProcess;

export interface LocalNatsServerOptions {
  binary: string;
  bus: Pick<LocalBus, 'configFile' | 'port'>;
  launch: LaunchProcess;
  /** Told when the server stopped on its own, and when it runs again. */
  report: (text: string) => void;
}

/** How long nats-server may take to listen: JetStream reads its store first, slowly on a loaded machine. */
const START_TIMEOUT_MS = 30000;
const STDERR_TAIL_BYTES = 4096;

/**
 * npm start's own nats-server, supervised as the services are: once it has listened, it is started again with the
 * same configuration and store whenever it stops on its own, after the restart policy's delay, until `stop`.
 */
export class LocalNatsServer {
  private child: ChildProcess | undefined;
  private supervising = false;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly policy = new RestartPolicy();

  constructor(private readonly options: LocalNatsServerOptions) {}

  /** The running server's process id (a test kills it). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Runs the server and resolves once it is ready for clients; rejects, saying why, when it is not. */
  async start(): Promise<void> {
    await listening(this.launch(), this.options.bus.port);
    this.supervising = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    if (this.child !== undefined) await stopChild(this.child);
  }

  private launch(): ChildProcess {
    const child = this.options.launch(this.options.binary, ['-c', this.options.bus.configFile]);
    const startedAt = Date.now();
    this.child = child;
    let ended = false;
    const end = (how: string) => {
      if (ended || this.stopping || !this.supervising) return;
      ended = true;
      const delayMs = this.policy.delayAfterExit(Date.now() - startedAt);
      this.options.report(`nats-server stopped unexpectedly (${how}); restarting it in ${delayMs / 1000} s`);
      this.restartTimer = setTimeout(() => {
        if (!this.stopping) this.launch();
      }, delayMs);
    };
    child.once('exit', (code, signal) => end(code === null ? `signal ${signal ?? 'unknown'}` : `exit code ${code}`));
    // A process that could not be started (the binary gone) ends with 'error' and no 'exit'.
    child.on('error', (error) => end(error.message));
    return child;
  }
}

/**
 * Resolves once the server says on stderr that it listens on `port` and is ready. Probing the port instead would be
 * fooled by another program holding it (private-nats.ts in libs/testing learnt that on CI).
 */
function listening(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let tail = '';
    const readyLine = new RegExp(`Listening for client connections on [^\\s]*:${port}\\s[\\s\\S]*Server is ready`);
    const onData = (data: Buffer) => {
      tail = (tail + data.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      if (readyLine.test(tail)) finish();
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => finish(new Error(startFailure(port, tail, code === null ? `signal ${signal ?? 'unknown'}` : `exit code ${code}`)));
    const onError = (error: Error) => finish(new Error(`nats-server could not be started: ${error.message}`));
    const timer = setTimeout(() => finish(new Error(`nats-server did not listen on 127.0.0.1:${port} within ${START_TIMEOUT_MS / 1000} s: ${lastLines(tail)}`)), START_TIMEOUT_MS);
    function finish(error?: Error) {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      if (error === undefined) resolve();
      else reject(error);
    }
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

function startFailure(port: number, tail: string, how: string): string {
  const taken = /address already in use/i.test(tail)
    ? ` Something else listens on 127.0.0.1:${port} (another program, or the nats-server of an npm start that was killed): stop it, or set LOCAL_NATS_PORT to a free port.`
    : '';
  return `nats-server stopped before it listened (${how}): ${lastLines(tail)}.${taken}`;
}

function lastLines(tail: string): string {
  return tail.trim().split('\n').slice(-3).join(' | ') || '(it said nothing)';
}

import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface TestNats {
  /** The server's URL; for a cluster, every node's URL separated by commas (NATS_URL's format). */
  url: string;
  /**
   * Stops the server (SIGTERM) and starts it again on the same port and store, as an operator's restart
   * does; JetStream keeps its streams. Only for a private server.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** One server: an outage can also be held open, to act while NATS is down. */
export interface TestNatsServer extends TestNats {
  /** The permission violations the server logged (Publish/Subscription Violation lines, with the client's name and subject). */
  violations(): string[];
  /** Stops the server (SIGTERM) and leaves it down, keeping its store, until `up`. Only for a private server. */
  down(): Promise<void>;
  /** Starts a server stopped by `down` again on the same port and store. */
  up(): Promise<void>;
}

const NATS_SERVER_CANDIDATES = [process.env['NATS_SERVER_BIN'], '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

export function natsServerBinary(): string | undefined {
  return NATS_SERVER_CANDIDATES.find((candidate) => candidate !== undefined && existsSync(candidate));
}

/** How long a nats-server may take to listen: JetStream (and a cluster's routes) start first, slowly on a loaded machine. */
const START_TIMEOUT_MS = 30000;
/** The end of a server's stderr kept for the error of a start that failed. */
const STDERR_TAIL_BYTES = 2048;

/** How nats-server logs a client's publish or subscribe outside its permissions (at error level, whatever the log level). */
const VIOLATION_LINE = /\b(Publish|Subscription) Violation\b/;
const VIOLATIONS_KEPT = 100;

/** When set, every private nats-server's log is also appended to <dir>/nats-server-<port>.log (permission violations, elections). */
const LOG_DIR = process.env['SVC_TEST_LOG_DIR'];

/** A nats-server exited before it listened (a port taken meanwhile, a bad store): starting anew on other ports may work. */
export class NatsServerExitedError extends Error {
  override readonly name = 'NatsServerExitedError';
}

/** One nats-server process that can be killed and started again with the same arguments (port, store). */
export class NatsServerProcess {
  private child: ChildProcess | undefined;
  private stderrTail = '';
  private partialLine = '';
  /** Every Publish/Subscription Violation line logged since the process was made (across restarts), at most VIOLATIONS_KEPT. */
  readonly violations: string[] = [];

  constructor(
    private readonly binary: string,
    private readonly args: string[],
    readonly port: number,
    private readonly scheme: 'nats' | 'tls' = 'nats',
  ) {}

  get url(): string {
    return `${this.scheme}://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Whether it runs (or how it ended) and the end of what it logged: for the message of a test that waited on it in vain. */
  describe(): string {
    const state = this.running ? 'running' : this.child ? `exited (${this.child.exitCode ?? this.child.signalCode})` : 'never started';
    return `${state}; last output: ${this.stderrTail.trim().split('\n').slice(-5).join(' | ') || '(none)'}`;
  }

  /**
   * Starts the server and waits until it says, on its own stderr, that it listens on its port and is ready. Probing
   * the port instead would be fooled by another process that took the port after it was handed out (an S3 double,
   * another test's server): the test would then talk NATS to it and time out (CI, 2026-11-27).
   */
  async start(): Promise<void> {
    if (this.running) return;
    const child = spawn(this.binary, this.args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    this.stderrTail = '';
    let ready = false;
    if (LOG_DIR) mkdirSync(LOG_DIR, { recursive: true });
    const readyLine = new RegExp(`Listening for client connections on [^\\s]*:${this.port}\\s[\\s\\S]*Server is ready`);
    child.stderr?.on('data', (data: Buffer) => {
      const text = data.toString('utf8');
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
      if (LOG_DIR) appendFileSync(join(LOG_DIR, `nats-server-${String(this.port)}.log`), data);
      this.keepViolations(text);
      ready ||= readyLine.test(this.stderrTail);
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!ready) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new NatsServerExitedError(`nats-server for port ${this.port} exited before it listened: ${this.stderrTail.trim() || `exit ${child.exitCode ?? child.signalCode}`}`);
      }
      if (Date.now() > deadline) throw new Error(`timed out after ${START_TIMEOUT_MS} ms waiting for nats-server on port ${this.port}: ${this.stderrTail.trim()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  private keepViolations(text: string): void {
    const lines = (this.partialLine + text).split('\n');
    this.partialLine = lines.pop() ?? '';
    for (const line of lines) {
      if (VIOLATION_LINE.test(line) && this.violations.length < VIOLATIONS_KEPT) this.violations.push(line.trim());
    }
  }

  /** Ends the process with `signal` (SIGKILL: as a crash would) and waits until it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill(signal);
    await exited;
  }
}

/** One node's ports and store, for a configuration file written by the test (users, permissions, TLS). */
export interface TestNatsNodeLayout {
  name: string;
  clientPort: number;
  storeDir: string;
  /** Cluster nodes only. */
  cluster?: { name: string; routePort: number; routes: string[]; monitorPort: number };
}

export interface TestNatsOptions {
  /** Writes the server's configuration file and returns its path; the server then runs with `-c` only. */
  config?: (layout: TestNatsNodeLayout) => string;
  /** `tls` when the configuration requires TLS of clients. */
  scheme?: 'nats' | 'tls';
}

/**
 * A NATS server with JetStream of the test's own, so a test's services never answer (or steal) requests
 * meant for another stack running on the same machine. Falls back to TEST_NATS_URL / NATS_URL when no
 * nats-server binary is installed.
 */
export async function startTestNats(options: TestNatsOptions = {}): Promise<TestNatsServer> {
  const binary = natsServerBinary();
  if (!binary && options.config) throw new Error('a NATS server with a configuration of its own needs the nats-server binary (set NATS_SERVER_BIN)');
  if (!binary) {
    return {
      url: process.env['TEST_NATS_URL'] ?? process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
      restart: () => Promise.reject(new Error('restart needs a private nats-server (none is installed)')),
      down: () => Promise.reject(new Error('down needs a private nats-server (none is installed)')),
      up: () => Promise.reject(new Error('up needs a private nats-server (none is installed)')),
      // The shared server's log is not this process's to read.
      violations: () => [],
      stop: async () => undefined,
    };
  }
  // A port handed out free may be taken before the server binds it: the server then exits, and starts anew on another.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const storeDir = mkdtempSync(join(tmpdir(), 'svc-test-nats-'));
    const args = options.config ? ['-c', options.config({ name: 'n1', clientPort: port, storeDir })] : ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir];
    const server = new NatsServerProcess(binary, args, port, options.scheme);
    try {
      await server.start();
      return privateServer(server, storeDir);
    } catch (error) {
      rmSync(storeDir, { recursive: true, force: true });
      if (!(error instanceof NatsServerExitedError) || attempt >= START_ATTEMPTS) throw error;
    }
  }
}

const START_ATTEMPTS = 3;

function privateServer(server: NatsServerProcess, storeDir: string): TestNatsServer {
  return {
    url: server.url,
    restart: async () => {
      await server.stop('SIGTERM');
      await server.start();
    },
    violations: () => [...server.violations],
    down: () => server.stop('SIGTERM'),
    up: () => server.start(),
    stop: async () => {
      await server.stop('SIGTERM');
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

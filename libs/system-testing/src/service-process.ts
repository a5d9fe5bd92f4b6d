import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServiceName } from '@svc/contracts';

/**
 * The build's root: this file sits at libs/system-testing/src, either in the sources (run by jest, the
 * build is <repo>/dist) or inside the build itself (run from dist/, as the benchmark does).
 */
const distRoot = __filename.endsWith('.js') ? resolve(__dirname, '..', '..', '..') : resolve(__dirname, '..', '..', '..', 'dist');

/** When set, every service's output is also appended to <dir>/<service>.log (to read after a failed run). */
const LOG_DIR = process.env['SVC_TEST_LOG_DIR'];
/** Extra node options for every service started, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (not allowed in NODE_OPTIONS). */
const NODE_ARGS = (process.env['SVC_TEST_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
/** How long a stopped service may take to exit before it is killed; a profiling run (`--cpu-prof`) needs longer. */
const STOP_GRACE_MS = Number(process.env['SVC_TEST_STOP_GRACE_MS']) || 5000;

/** A built service (dist/) running as its own process, as `npm start` and production run it. */
export class ServiceProcess {
  private readonly output: string[] = [];
  private child: ChildProcess | undefined;

  constructor(
    readonly service: ServiceName,
    private readonly env: Record<string, string>,
  ) {}

  start(): void {
    const entry = join(distRoot, 'apps', this.service, 'src', 'main.js');
    // A directory that does not exist yet is made: otherwise every line of output would fail the test that started the service.
    if (LOG_DIR) mkdirSync(LOG_DIR, { recursive: true });
    const child = spawn(process.execPath, [...NODE_ARGS, entry], { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      this.output.push(text);
      if (LOG_DIR) appendFileSync(join(LOG_DIR, `${this.service}.log`), text);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.child = child;
  }

  get exited(): boolean {
    return this.child?.exitCode !== null && this.child?.exitCode !== undefined;
  }

  /** Everything the process printed so far (its logs). */
  logs(): string {
    return this.output.join('');
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

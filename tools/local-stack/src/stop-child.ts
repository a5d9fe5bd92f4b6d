import type { ChildProcess } from 'node:child_process';

/** Asks a child process to stop (SIGTERM), forces it after 5 s, and resolves once it is gone. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

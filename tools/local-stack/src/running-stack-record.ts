import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The file by which a second `npm start` (bin/already-running.mjs, before it builds) knows that a stack runs, and
 * from which the CLI of this checkout takes the development key when no credentials are set: written once the API
 * answers (only its owner may read it), removed when the stack stops. A stack killed outright leaves it behind; the
 * check then finds its process gone and ignores it.
 */
export class RunningStackRecord {
  constructor(private readonly path: string) {}

  /**
   * `developmentKey`: the installation's development key npm start runs on, never one of the user's. `bus`: npm start's
   * own nats-server and the file of its operator seed, for `svc keys … --over-bus` of this checkout.
   */
  write(api: string, developmentKey?: { accessKeyId: string; secretKey: string }, bus?: { natsUrl: string; operatorSeedFile: string }): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const record = {
      pid: process.pid,
      api,
      startedAt: new Date().toISOString(),
      ...(developmentKey !== undefined && { developmentKey }),
      ...(bus !== undefined && { bus }),
    };
    rmSync(this.path, { force: true });
    writeFileSync(this.path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }

  /** Removes the record if it is this process's (another stack may have written it since). */
  remove(): void {
    try {
      const record = JSON.parse(readFileSync(this.path, 'utf8')) as { pid?: unknown };
      if (record.pid === process.pid) rmSync(this.path, { force: true });
    } catch {
      // No record, or not readable: nothing of ours to remove.
    }
  }
}

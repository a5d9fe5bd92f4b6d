import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The file by which a second `npm start` (bin/already-running.mjs, before it builds) knows that a stack runs:
 * written once the API answers, removed when the stack stops. A stack killed outright leaves it behind; the
 * check then finds its process gone and ignores it.
 */
export class RunningStackRecord {
  constructor(private readonly path: string) {}

  write(api: string): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, `${JSON.stringify({ pid: process.pid, api, startedAt: new Date().toISOString() })}\n`);
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

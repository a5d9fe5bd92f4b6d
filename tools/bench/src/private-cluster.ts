import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@svc/testing';
import type { ServerPrograms } from './postgres-tools';

/** initdb and postgres refuse to run as root: as root, they run as this user (and it owns the data folder). */
const SERVER_USER = 'postgres';

function serverUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, SERVER_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL cluster of the benchmark's own: `initdb` into a temporary folder, started on a private port with
 * the settings asked for (e.g. wal_level=logical), trust authentication on 127.0.0.1. Nobody's server is
 * reconfigured; `stop` shuts it down fast and removes its folder.
 */
export class PrivateCluster {
  private constructor(
    readonly port: number,
    private readonly folder: string,
    private readonly server: ChildProcess,
    private readonly exited: Promise<void>,
  ) {}

  static async start(programs: ServerPrograms, settings: Record<string, string>): Promise<PrivateCluster> {
    const folder = mkdtempSync(join(tmpdir(), 'svc-bench-cluster-'));
    const data = join(folder, 'data');
    try {
      const owner: { uid?: number; gid?: number } = process.getuid?.() === 0 ? serverUser() : {};
      if (owner.uid !== undefined && owner.gid !== undefined) chownSync(folder, owner.uid, owner.gid);
      execFileSync(programs.initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], { ...owner, stdio: ['ignore', 'ignore', 'pipe'] });
      const port = await freePort();
      const options = Object.entries({ ...settings, port: String(port), listen_addresses: '127.0.0.1', unix_socket_directories: folder }).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
      const server = spawn(programs.postgres, ['-D', data, ...options], { ...owner, stdio: ['ignore', 'ignore', 'pipe'] });
      const errors: Buffer[] = [];
      server.stderr?.on('data', (chunk: Buffer) => errors.length < 100 && errors.push(chunk));
      const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
      const cluster = new PrivateCluster(port, folder, server, exited);
      await cluster.untilAccepting(() => Buffer.concat(errors).toString('utf8'));
      return cluster;
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** libpq keyword form, as CREATE SUBSCRIPTION's CONNECTION wants it. */
  conninfo(database: string): string {
    return `host=127.0.0.1 port=${this.port} user=postgres dbname=${database}`;
  }

  async createDatabase(name: string): Promise<void> {
    const client = new Client({ connectionString: this.url('postgres') });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    if (this.server.exitCode === null && this.server.signalCode === null) {
      // SIGINT: PostgreSQL's fast shutdown (running transactions rolled back, no wait for clients).
      this.server.kill('SIGINT');
      await Promise.race([this.exited, new Promise((done) => setTimeout(done, 30_000).unref())]);
      if (this.server.exitCode === null && this.server.signalCode === null) this.server.kill('SIGKILL');
    }
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async untilAccepting(output: () => string): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (this.server.exitCode !== null) throw new Error(`the private PostgreSQL exited with ${this.server.exitCode}: ${output().trim().slice(-2000)}`);
      const client = new Client({ connectionString: this.url('postgres') });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`the private PostgreSQL did not accept connections within 30 s: ${output().trim().slice(-2000)}`, { cause: error });
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  }
}

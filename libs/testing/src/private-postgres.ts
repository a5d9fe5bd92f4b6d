import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { postgresAccount, postgresBinDir } from './postgres-binaries';

const run = promisify(execFile);

/** One data folder of a private PostgreSQL cluster (initdb, or a base backup of another). */
export interface PrivateCluster {
  readonly dataDir: string;
  readonly port: number;
  /** Trust authentication as the superuser `postgres`, over TCP on 127.0.0.1. */
  url(database?: string): string;
}

/**
 * A temporary folder holding PostgreSQL clusters of a test's own, for what the shared server must not be put through
 * (stopped, restored from a backup, promoted to another timeline). Each cluster's settings are in its
 * postgresql.conf, so a base backup of it starts with the same port and socket folder: it is reached at the same
 * address, as a restored database is. As root the server binaries run as the `postgres` account (PostgreSQL refuses
 * to run as root). `remove` stops every cluster it started and deletes the folder.
 */
export class PrivatePostgres {
  private readonly started = new Set<string>();

  private constructor(
    readonly folder: string,
    private readonly bin: string,
    private readonly owner: { uid: number; gid: number } | null,
  ) {}

  static create(prefix = 'svc-pg-'): PrivatePostgres {
    const folder = mkdtempSync(join(tmpdir(), prefix));
    const owner = process.getuid?.() === 0 ? postgresAccount() : null;
    if (owner) chownSync(folder, owner.uid, owner.gid);
    return new PrivatePostgres(folder, postgresBinDir(), owner);
  }

  /** A new cluster (trust authentication, no fsync, wal_level replica) on a free port, not started. */
  async initdb(name: string): Promise<PrivateCluster> {
    const dataDir = join(this.folder, name);
    await this.asOwner('initdb', ['-D', dataDir, '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--auth=trust', '--no-sync', '--no-instructions']);
    const cluster = clusterAt(dataDir, await freePort());
    this.configure(cluster, {
      port: String(cluster.port),
      listen_addresses: '127.0.0.1',
      unix_socket_directories: this.folder,
      fsync: 'off',
      wal_level: 'replica',
      max_wal_senders: '4',
      max_connections: '30',
      autovacuum: 'off',
    });
    return cluster;
  }

  /** Appends settings to the cluster's postgresql.conf (a later line wins). */
  configure(cluster: PrivateCluster, settings: Record<string, string>): void {
    const lines = Object.entries(settings).map(([name, value]) => `${name} = '${value.replaceAll("'", "''")}'\n`);
    appendFileSync(join(cluster.dataDir, 'postgresql.conf'), lines.join(''));
  }

  /** Writes a file into the cluster's data folder (recovery.signal, say), owned by the server's account. */
  writeDataFile(cluster: PrivateCluster, name: string, text = ''): void {
    const path = join(cluster.dataDir, name);
    writeFileSync(path, text, { mode: 0o600 });
    if (this.owner) chownSync(path, this.owner.uid, this.owner.gid);
  }

  /** Starts the cluster and waits until it accepts connections (a server in recovery may still be read-only then). */
  async start(cluster: PrivateCluster): Promise<void> {
    this.started.add(cluster.dataDir);
    await this.asOwner('pg_ctl', ['-D', cluster.dataDir, '-l', `${cluster.dataDir}.log`, '-w', '-t', '30', 'start']);
  }

  async stop(cluster: PrivateCluster, mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.asOwner('pg_ctl', ['-D', cluster.dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
    this.started.delete(cluster.dataDir);
  }

  /** A base backup of the running cluster (pg_basebackup -X stream: the WAL to make it consistent is in it), not started. */
  async baseBackup(from: PrivateCluster, name: string): Promise<PrivateCluster> {
    const dataDir = join(this.folder, name);
    await this.asOwner('pg_basebackup', ['-D', dataDir, '-X', 'stream', '-h', this.folder, '-p', String(from.port), '-U', 'postgres', '--checkpoint=fast', '--no-sync']);
    return clusterAt(dataDir, from.port);
  }

  /** The end of a cluster's server log, for a failure message. */
  logTail(cluster: PrivateCluster, lines = 30): string {
    try {
      return execFileSync('tail', ['-n', String(lines), `${cluster.dataDir}.log`], { encoding: 'utf8' });
    } catch {
      return '(no server log)';
    }
  }

  /** Stops every cluster still running (immediately) and deletes the folder; never throws. */
  async remove(): Promise<void> {
    for (const dataDir of this.started) {
      await this.asOwner('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => undefined);
    }
    this.started.clear();
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async asOwner(binary: string, args: string[]): Promise<void> {
    const path = join(this.bin, binary);
    try {
      if (this.owner) await run('runuser', ['-u', 'postgres', '--', path, ...args], { cwd: this.folder });
      else await run(path, args, { cwd: this.folder });
    } catch (error) {
      const stderr = (error as { stderr?: unknown }).stderr;
      throw new Error(`${binary} ${args.join(' ')} failed: ${typeof stderr === 'string' && stderr !== '' ? stderr.trim() : String(error)}`);
    }
  }
}

function clusterAt(dataDir: string, port: number): PrivateCluster {
  return { dataDir, port, url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}` };
}

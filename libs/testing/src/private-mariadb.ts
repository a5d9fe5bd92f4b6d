import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { createConnection, type Connection } from 'mysql2/promise';

const run = promisify(execFile);

/** Where Debian's mariadb-server puts its binaries; MARIADB_BIN_DIR overrides. */
function binary(name: string): string {
  const folders = [process.env['MARIADB_BIN_DIR'], '/usr/sbin', '/usr/bin', '/usr/local/mysql/bin'].filter((folder): folder is string => folder !== undefined);
  const found = folders.map((folder) => join(folder, name)).find((path) => existsSync(path));
  if (found === undefined) throw new Error(`${name} is not installed: install MariaDB's server (apt-get install mariadb-server) or set MARIADB_BIN_DIR`);
  return found;
}

export interface PrivateMariaDbOptions {
  /** Server settings on the command line (`binlog-format: 'MIXED'`), over the defaults below. */
  settings?: Record<string, string>;
}

/**
 * A MariaDB server of a test's own: a data folder in a temporary folder, a private port on 127.0.0.1, the binary log on
 * in ROW format with FULL images (what a source needs), durability off for speed. Root logs in without a password over
 * TCP. `stop` ends the server and deletes the folder; `restart` keeps the data.
 */
export class PrivateMariaDb {
  private process: ChildProcess | null = null;

  private constructor(
    readonly folder: string,
    readonly port: number,
    private readonly settings: Record<string, string>,
  ) {}

  static async start(options: PrivateMariaDbOptions = {}): Promise<PrivateMariaDb> {
    const folder = mkdtempSync(join(tmpdir(), 'svc-mariadb-'));
    const dataDir = join(folder, 'data');
    const asRoot = process.getuid?.() === 0;
    await run(binary('mariadb-install-db'), [
      '--no-defaults',
      `--datadir=${dataDir}`,
      ...(asRoot ? ['--user=root'] : []),
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--skip-name-resolve',
      // A temporary folder of its own: two bootstraps at once in /tmp collide on their temporary tables' file names.
      `--tmpdir=${folder}`,
    ]);
    const server = new PrivateMariaDb(folder, await freePort(), {
      'log-bin': join(dataDir, 'binlog'),
      'binlog-format': 'ROW',
      'binlog-row-image': 'FULL',
      'server-id': '1',
      'innodb-buffer-pool-size': '64M',
      'innodb-log-file-size': '16M',
      'innodb-flush-log-at-trx-commit': '0',
      'sync-binlog': '0',
      'max-connections': '100',
      'character-set-server': 'utf8mb4',
      'collation-server': 'utf8mb4_unicode_ci',
      ...options.settings,
    });
    await server.launch();
    return server;
  }

  /** `mysql://root@127.0.0.1:<port>/<database>`, or a user's. */
  url(database = '', user = 'root', password = ''): string {
    const credentials = password === '' ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
    return `mysql://${credentials}@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** A connection as root (multiple statements allowed), to set up what a test needs. */
  connect(database?: string): Promise<Connection> {
    return createConnection({ host: '127.0.0.1', port: this.port, user: 'root', multipleStatements: true, ...(database !== undefined && { database }) });
  }

  /** Runs statements as root and closes the connection. */
  async execute(sql: string, database?: string): Promise<void> {
    const connection = await this.connect(database);
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  }

  /** Stops the server (its data stays) and starts it again with these settings over its own. */
  async restart(settings: Record<string, string> = {}): Promise<void> {
    await this.shutdown();
    Object.assign(this.settings, settings);
    await this.launch();
  }

  async stop(): Promise<void> {
    await this.shutdown();
    rmSync(this.folder, { recursive: true, force: true });
  }

  /** Ends the server at once and deletes its folder, synchronously (for a process's exit). */
  kill(): void {
    this.process?.kill('SIGKILL');
    this.process = null;
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const dataDir = join(this.folder, 'data');
    const args = [
      '--no-defaults',
      `--datadir=${dataDir}`,
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
      `--port=${this.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(this.folder, 'mariadb.sock')}`,
      `--pid-file=${join(this.folder, 'mariadb.pid')}`,
      `--log-error=${join(this.folder, 'error.log')}`,
      `--tmpdir=${this.folder}`,
      '--skip-name-resolve',
      ...Object.entries(this.settings).map(([name, value]) => `--${name}=${value}`),
    ];
    const child = spawn(binary('mariadbd'), args, { stdio: 'ignore' });
    this.process = child;
    const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code) => reject(new Error(`mariadbd exited with ${String(code)}; see ${join(this.folder, 'error.log')}`))));
    exited.catch(() => undefined);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const connection = await Promise.race([this.connect(), exited]);
        await connection.end();
        return;
      } catch (error) {
        if (child.exitCode !== null || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  private async shutdown(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (child === null || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }
}

// The integration run's PostgreSQL with wal_level=logical (log capture's tests, @svc/testing logicalPostgresUrl):
// started once here, before the workers, when neither TEST_LOGICAL_POSTGRES_URL nor the test server provides one, and
// stopped by the teardown. Workers inherit TEST_LOGICAL_POSTGRES_URL. (A cluster each worker started for itself outlived
// the workers: jest ends them without running their 'exit' handlers.)
const { execFileSync } = require('node:child_process');
const { chownSync, existsSync, mkdtempSync, rmSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');

const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const CLUSTER_KEY = '__svcLogicalPostgres';

function binDir() {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // No pg_config on the PATH.
  }
  for (const version of ['17', '16', '15', '14', '13']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error('initdb not found: set PG_BIN_DIR, or TEST_LOGICAL_POSTGRES_URL to a server with wal_level=logical');
}

/** As root, the server programs run as the postgres account (PostgreSQL refuses root). */
function run(program, args) {
  const asRoot = process.getuid && process.getuid() === 0;
  const [file, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', program, ...args] : [program, ...args];
  execFileSync(file, rest, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A port nothing listens on, below the range outgoing connections take local ports from (as @svc/testing's freePort). */
async function freePort() {
  let start = 32768;
  try {
    start = Number(require('node:fs').readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || start;
  } catch {
    // Not Linux: the default range.
  }
  for (let attempt = 0; start - 20000 > 1000 && attempt < 50; attempt += 1) {
    const port = 20000 + Math.floor(Math.random() * (start - 20000));
    if (port !== 25672 && (await bindable(port))) return port;
  }
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function walLevel(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('show wal_level')).rows[0].wal_level;
  } finally {
    await client.end();
  }
}

async function setup() {
  if (process.env.TEST_LOGICAL_POSTGRES_URL) return;
  if ((await walLevel(TEST_POSTGRES_URL)) === 'logical') {
    process.env.TEST_LOGICAL_POSTGRES_URL = TEST_POSTGRES_URL;
    return;
  }
  const folder = mkdtempSync(join(tmpdir(), 'svc-pg-logical-'));
  if (process.getuid && process.getuid() === 0) {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(folder, id('-u'), id('-g'));
  }
  const dataDir = join(folder, 'logical');
  const bin = binDir();
  const port = await freePort();
  run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--auth=trust', '--no-sync', '--no-instructions']);
  const settings = { port, listen_addresses: '127.0.0.1', unix_socket_directories: folder, fsync: 'off', wal_level: 'logical', max_replication_slots: 40, max_wal_senders: 10, max_connections: 200 };
  const options = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  run(join(bin, 'pg_ctl'), ['-D', dataDir, '-l', `${dataDir}.log`, '-o', options, '-w', '-t', '30', 'start']);
  globalThis[CLUSTER_KEY] = { bin, dataDir, folder };
  process.env.TEST_LOGICAL_POSTGRES_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
}

async function teardown() {
  const cluster = globalThis[CLUSTER_KEY];
  if (!cluster) return;
  try {
    run(join(cluster.bin, 'pg_ctl'), ['-D', cluster.dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']);
  } finally {
    rmSync(cluster.folder, { recursive: true, force: true });
  }
}

module.exports = { setup, teardown };

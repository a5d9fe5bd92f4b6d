import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { EnvReader } from '@svc/config';
import { PrivateMariaDb } from '@svc/testing';
import { TestStack } from '@svc/system-testing';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import type { RowDataPacket } from 'mysql2';
import { Pool } from 'pg';
import { benchCreateRequest, call, describeReplication } from './bench-api';
import { appendSection } from './bench-report';
import { benchStackEnv } from './bench-settings';
import { cleanUpOnInterrupt } from './interrupt';
import { machineInfo } from './machine-info';
import { libpqArguments, locatePostgresTools, runCommand } from './postgres-tools';

const POLL_MS = 250;
const DEADLINE_MS = 60 * 60_000;
const SCHEMA = 'bench_mysql';
/** pgbench_accounts' shape, so that the figures read beside the PostgreSQL ones. */
const ACCOUNTS_SQL = 'CREATE TABLE bench.accounts (aid INT NOT NULL PRIMARY KEY, bid INT NOT NULL, abalance INT NOT NULL, filler CHAR(84))';

export interface MysqlBenchSettings {
  rows: number;
  /** Rows changed by the change workload, in transactions of `rowsPerTransaction`. */
  updates: number;
  rowsPerTransaction: number;
  reportFile: string;
}

export function loadMysqlBenchSettings(environment: Record<string, string | undefined>, reportFile: string): MysqlBenchSettings {
  const env = new EnvReader(environment);
  return {
    rows: env.int('BENCH_MYSQL_ROWS', 1_000_000, { min: 1000, max: 1_000_000_000 }),
    updates: env.int('BENCH_MYSQL_UPDATES', 200_000, { min: 1000, max: 100_000_000 }),
    rowsPerTransaction: env.int('BENCH_MYSQL_ROWS_PER_TRANSACTION', 1000, { min: 1, max: 1_000_000 }),
    reportFile: env.string('BENCH_REPORT_FILE', reportFile),
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * MariaDB as the source (a private mariadbd with its binary log) into PostgreSQL: the seed of a pgbench_accounts-shaped
 * table against a raw pipe (`mariadb --batch … | psql \copy`, the floor any tool pays to move the rows), and the rate at
 * which a workload of updates is applied (from its first write until the warehouse's sum equals the source's).
 */
export async function runMysqlBenchmark(settings: MysqlBenchSettings, logFile: string, log: (line: string) => void): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const tools = locatePostgresTools({ path: process.env['PATH'] });
  const stackEnv = benchStackEnv(process.env);
  const stack = new TestStack({ workers: ['extractor', 'stager', 'loader'], env: stackEnv });
  let server: PrivateMariaDb | undefined;
  let stagingServer: PrivateMariaDb | undefined;
  let scratch: TempDatabase | undefined;
  const pools: Pool[] = [];
  const cleanUp = async () => {
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await scratch?.drop().catch(() => undefined);
    await stack.stop();
    await server?.stop();
    await stagingServer?.stop();
    mkdirSync(dirname(logFile), { recursive: true });
    writeFileSync(logFile, stack.logs());
  };
  const stopWatchingSignals = cleanUpOnInterrupt(cleanUp, log);
  try {
    log('starting a private mariadbd, the services, a private nats-server, an S3 server and temporary databases');
    server = await PrivateMariaDb.start({ settings: { 'innodb-buffer-pool-size': '512M', 'max-allowed-packet': '64M' } });
    // Staging is MySQL too (the source's engine), on a server of its own: it keeps the source's database names.
    stagingServer = await PrivateMariaDb.start({ settings: { 'innodb-buffer-pool-size': '512M', 'max-allowed-packet': '64M' } });
    await stack.start();
    const mariadb = await server.connect();
    const warehouse = new Pool({ connectionString: stack.warehouse.url, max: 2 });
    pools.push(warehouse);
    const startedAt = new Date();
    log(`filling bench.accounts with ${settings.rows} rows`);
    await mariadb.query(`CREATE DATABASE bench; ${ACCOUNTS_SQL}`);
    await mariadb.query(`INSERT INTO bench.accounts SELECT seq, seq DIV 100000, 0, '' FROM bench.seq_1_to_${settings.rows}`);
    await mariadb.query('ANALYZE TABLE bench.accounts');
    const [size] = await mariadb.query<RowDataPacket[]>("SELECT DATA_LENGTH + INDEX_LENGTH AS bytes FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'bench' AND TABLE_NAME = 'accounts'");
    const tableBytes = Number(size[0]?.['bytes'] ?? 0);

    log('raw pipe: mariadb --batch | psql \\copy into a scratch database');
    scratch = await createTempDatabase('svc_bench_mysql_raw');
    const scratchPool = new Pool({ connectionString: scratch.url, max: 1 });
    pools.push(scratchPool);
    await scratchPool.query('CREATE TABLE accounts (aid int NOT NULL PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84))');
    const psql = libpqArguments(scratch.url);
    const rawStarted = performance.now();
    const pipe = `set -o pipefail; mariadb --no-defaults -h 127.0.0.1 -P ${server.port} -u root --batch --skip-column-names --quick -e 'SELECT aid, bid, abalance, filler FROM bench.accounts' | '${tools.psql}' ${psql.args.map((arg) => `'${arg}'`).join(' ')} '${psql.database}' -q -c '\\copy accounts from stdin'`;
    await runCommand('bash', ['-c', pipe], psql.env);
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    log(`  ${rawSeconds.toFixed(1)} s`);

    log('seed through the service (Create → Tracking, and → the warehouse holds every row)');
    const request = benchCreateRequest(stack, server.url('bench'));
    const seedStarted = performance.now();
    const { replicationId } = await call<{ replicationId: string }>(stack, 'CreateWarehouseReplication', {
      ...request,
      staging: { ...(request['staging'] as Record<string, unknown>), connectionString: stagingServer.url('') },
      warehouse: { ...(request['warehouse'] as Record<string, unknown>), databaseSchema: SCHEMA, bucketFolderName: `/${SCHEMA}` },
    });
    let trackingAfter = 0;
    for (;;) {
      if (performance.now() - seedStarted > DEADLINE_MS) throw new Error('the seed did not finish within an hour');
      const described = await describeReplication(stack, replicationId);
      const failed = described.tables.find((table) => table.phase === 'Error');
      if (failed) throw new Error(`seeding failed: ${failed.name}: ${failed.lastError ?? 'no error recorded'}`);
      if (described.tables.length > 0 && described.tables.every((table) => table.phase === 'Tracking')) {
        trackingAfter = (performance.now() - seedStarted) / 1000;
        break;
      }
      await sleep(POLL_MS);
    }
    const sums = async () => {
      const [source] = await mariadb.query<RowDataPacket[]>('SELECT COUNT(*) AS n, CAST(SUM(abalance) AS CHAR) AS total FROM bench.accounts');
      const target = await warehouse.query<{ n: string; total: string | null }>(`SELECT count(*)::text AS n, sum(abalance)::text AS total FROM ${SCHEMA}.bench_accounts`).catch(() => ({ rows: [] }));
      return { source: `${String(source[0]?.['n'])}/${String(source[0]?.['total'])}`, warehouse: `${target.rows[0]?.n ?? '-'}/${target.rows[0]?.total ?? '-'}` };
    };
    const equalAfter = async (started: number) => {
      for (;;) {
        const now = await sums();
        if (now.source === now.warehouse) return (performance.now() - started) / 1000;
        if (performance.now() - started > DEADLINE_MS) throw new Error(`the warehouse never equalled the source: ${JSON.stringify(now)}`);
        await sleep(POLL_MS);
      }
    };
    const seedEqualAfter = await equalAfter(seedStarted);
    log(`  Tracking after ${trackingAfter.toFixed(1)} s, equal after ${seedEqualAfter.toFixed(1)} s`);

    log(`change workload: ${settings.updates} rows updated in transactions of ${settings.rowsPerTransaction}`);
    const changesStarted = performance.now();
    for (let first = 1; first <= settings.updates; first += settings.rowsPerTransaction) {
      const last = Math.min(settings.updates, first + settings.rowsPerTransaction - 1);
      await mariadb.query(`UPDATE bench.accounts SET abalance = abalance + 1 WHERE aid BETWEEN ${first} AND ${Math.min(last, settings.rows)}`);
    }
    const writtenAfter = (performance.now() - changesStarted) / 1000;
    const appliedAfter = await equalAfter(changesStarted);
    log(`  written in ${writtenAfter.toFixed(1)} s, applied after ${appliedAfter.toFixed(1)} s`);
    await mariadb.end();

    const machine = await machineInfo(warehouse, loadAtStart);
    const section = [
      `## MySQL source (MariaDB ${await serverVersion(server)}) into PostgreSQL: ${settings.rows} rows, ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${(machine.memoryBytes / 1024 ** 3).toFixed(0)} GiB RAM, ${machine.os}, Node.js ${machine.node}, PostgreSQL ${machine.postgres}; load ${machine.loadAverage.start.toFixed(2)} → ${machine.loadAverage.end.toFixed(2)}.`,
      `Command: \`BENCH_MYSQL_ROWS=${settings.rows} BENCH_MYSQL_UPDATES=${settings.updates} npm run bench -- mysql\`. A pgbench_accounts-shaped table (${(tableBytes / 1024 ** 2).toFixed(0)} MiB in InnoDB) on a private mariadbd (binary log ROW/FULL, sync_binlog 0, buffer pool 512 MiB), staging on a second one, the warehouse on the machine's PostgreSQL.`,
      `Services: ${Object.entries(stackEnv).map(([name, value]) => `${name}=${value}`).join(', ') || 'defaults'}.`,
      '',
      '| Step | seconds | rows/s | ratio |',
      '| --- | --: | --: | --: |',
      `| raw pipe: \`mariadb --batch --quick … \\| psql \\copy\` into an empty keyed table | ${rawSeconds.toFixed(1)} | ${Math.round(settings.rows / rawSeconds)} | 1.00 |`,
      `| seed: Create → every table Tracking | ${trackingAfter.toFixed(1)} | ${Math.round(settings.rows / trackingAfter)} | ${(rawSeconds / trackingAfter).toFixed(2)} |`,
      `| seed: Create → the warehouse holds every row | ${seedEqualAfter.toFixed(1)} | ${Math.round(settings.rows / seedEqualAfter)} | ${(rawSeconds / seedEqualAfter).toFixed(2)} |`,
      `| changes: ${settings.updates} rows updated (${Math.ceil(settings.updates / settings.rowsPerTransaction)} transactions), written | ${writtenAfter.toFixed(1)} | ${Math.round(settings.updates / writtenAfter)} | |`,
      `| changes: first write → the warehouse's sum equals the source's | ${appliedAfter.toFixed(1)} | ${Math.round(settings.updates / appliedAfter)} | |`,
      '',
      'Ratio: raw pipe seconds / the step\'s seconds (1.00 would be as fast as the bare copy, which moves the rows once and',
      'keeps nothing; the seed writes them to staging, S3 and the warehouse and starts change capture at its position).',
    ].join('\n');
    process.stdout.write(`\n${section}\n`);
    appendSection(settings.reportFile, section);
    log(`appended to ${settings.reportFile}`);
  } finally {
    stopWatchingSignals();
    await cleanUp();
  }
}

async function serverVersion(server: PrivateMariaDb): Promise<string> {
  const connection = await server.connect();
  try {
    const [rows] = await connection.query<RowDataPacket[]>('SELECT VERSION() AS version');
    return String(rows[0]?.['version'] ?? 'unknown').replace(/-.*$/, '');
  } finally {
    await connection.end();
  }
}

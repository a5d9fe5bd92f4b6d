import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCHMARKS_HEADER, appendSection, rawPipeTotals, renderSection, seedRatio, seedToFloor, type BenchResult } from './bench-report';

const MIB = 1024 * 1024;

function result(overrides: Partial<BenchResult> = {}): BenchResult {
  return {
    startedAt: new Date('2026-11-23T01:30:00Z'),
    machine: { cpus: 2, cpuModel: 'Test CPU', memoryBytes: 8 * 1024 * MIB, os: 'Linux 6.1', node: 'v20.20.2', postgres: '15.20', loadAverage: { start: 0.5, end: 1.25 } },
    settings: { scale: 20, durationSeconds: 60, clients: 4, reportFile: 'x', stagers: 1, loaders: 1, batchLimit: null, repeats: 2 },
    stackEnv: { WORKER_CONCURRENCY: '4' },
    parallelTables: 8,
    initSeconds: 30,
    rawPipe: [
      { table: 'pgbench_accounts', rows: 2_000_000, bytes: 256 * MIB, seconds: 8 },
      { table: 'pgbench_branches', rows: 20, bytes: 0, seconds: 2 },
    ],
    floor: [
      { table: 'pgbench_accounts', rows: 2_000_000, bytes: 256 * MIB, seconds: 14 },
      { table: 'pgbench_branches', rows: 20, bytes: 0, seconds: 2 },
    ],
    seed: {
      seconds: 25,
      rows: 2_000_020,
      settledAfter: { '[public].[pgbench_branches]': 1, '[public].[pgbench_accounts]': 24 },
      files: { count: 5, firstAt: 3.1, lastAt: 12.25 },
    },
    lag: {
      stats: { count: 300, p50: 0.8, p95: 1.9, p99: 2.5, max: 3.25, mean: 0.9 },
      probesWritten: 300,
      probeFailures: 0,
      pgbench: { tps: 812.1, latencyMs: 4.9, transactions: 48712 },
      caughtUpSeconds: 1.4,
    },
    peakRss: [
      { service: 'loader', bytes: 150 * MIB },
      { service: 'api-gateway', bytes: null },
    ],
    cpu: {
      seed: { processes: { extractor: 5, loader: 7.5 }, self: 2, rest: 10, machine: 24.5, wallSeconds: 25 },
      lag: { processes: { extractor: 1, loader: 2 }, self: 1, rest: 50, machine: 54, wallSeconds: 60 },
    },
    warnings: 2,
    logFile: 'tmp/bench-services.log',
    ...overrides,
  };
}

describe('rawPipeTotals, seedRatio and seedToFloor', () => {
  it('sum the raw pipe and divide it by the seed time', () => {
    expect(rawPipeTotals(result().rawPipe)).toEqual({ table: 'total', rows: 2_000_020, bytes: 256 * MIB, seconds: 10 });
    expect(seedRatio(result())).toBeCloseTo(0.4);
    expect(seedToFloor(result())).toBeCloseTo(0.64);
  });
});

describe('renderSection', () => {
  const section = renderSection(result());

  it('is dated and carries the machine and the settings', () => {
    expect(section.startsWith('## 2026-11-23 01:30 UTC — scale 20, 60 s, 4 clients')).toBe(true);
    expect(section).toContain('2 CPUs (Test CPU), 8.0 GiB RAM, Linux 6.1, Node.js v20.20.2, PostgreSQL 15.20');
    expect(section).toContain('0.50 at the start, 1.25 at the end');
    expect(section).toContain('BENCH_SCALE=20, BENCH_DURATION_S=60, BENCH_CLIENTS=4, BENCH_STAGERS=1, BENCH_LOADERS=1; services: WORKER_CONCURRENCY=4; ParallelTablesLimit 8');
  });

  it('carries every figure', () => {
    expect(section).toContain('| pgbench_accounts | 2,000,000 | 256.0 | 8.00 | 32.0 |');
    expect(section).toContain('| total | 2,000,020 | 256.0 | 10.00 | 25.6 |');
    expect(section).toContain('| total | 2,000,020 | 256.0 | 16.00 | 16.0 |');
    expect(section).toContain('| 25.00 | 2,000,020 | 80,001 | 10.2 | 0.40 | 0.64 (target ≥ 0.8: **missed**) |');
    expect(section).toContain(
      'Tables settled after: [public].[pgbench_branches] 1.0 s, [public].[pgbench_accounts] 24.0 s. Batch data files in S3: 5, the first 3.1 s and the last 12.3 s after Create.',
    );
    expect(section).toContain('CPU seconds during the seed: extractor 5.0, loader 7.5, bench 2.0, rest 10.0 (machine busy 24.5 of 50.0 CPU-s: 25.0 s × 2 CPUs).');
    expect(section).toContain('CPU seconds during the lag run: extractor 1.0, loader 2.0, bench 1.0, rest 50.0 (machine busy 54.0 of 120.0 CPU-s: 60.0 s × 2 CPUs).');
    expect(section).toContain('| 300/300 | 0.80 | 1.90 | 2.50 | 3.25 | 0.90 |');
    expect(section).toContain('p99 target ≤ 1 s: **missed**. pgbench: 812.1 tps, latency average 4.90 ms, 48,712 transactions. Warehouse caught up 1.4 s after pgbench ended.');
    expect(section).toContain('**Peak RSS (VmHWM)**: loader 150 MiB, api-gateway n/a.');
    expect(section).toContain('Warn/error lines logged by the services: 2 (logs: `tmp/bench-services.log`).');
  });

  it('says plainly when a target is missed or probes were lost', () => {
    const slow = renderSection(
      result({
        seed: { seconds: 100, rows: 1, settledAfter: {}, files: { count: 0, firstAt: Number.NaN, lastAt: Number.NaN } },
        lag: { ...result().lag, stats: { ...result().lag.stats, count: 299, p99: 7 }, probeFailures: 1, caughtUpSeconds: null },
      }),
    );
    expect(slow).toContain('0.16 (target ≥ 0.8: **missed**)');
    expect(renderSection(result({ seed: { ...result().seed, seconds: 16 } }))).toContain('1.00 (target ≥ 0.8: met)');
    expect(slow).toContain('| 299/300 |');
    expect(slow).toContain('p99 target ≤ 1 s: **missed**. 1 probe inserts failed.');
    expect(slow).toContain('Warehouse caught up never (within the deadline)');
  });
});

describe('appendSection', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file with its header, then appends below what is there', () => {
    const file = join(dir, 'BENCHMARKS.md');
    appendSection(file, '## first\n');
    expect(readFileSync(file, 'utf8')).toBe(`${BENCHMARKS_HEADER}\n## first\n`);
    appendSection(file, '## second\n');
    expect(readFileSync(file, 'utf8')).toBe(`${BENCHMARKS_HEADER}\n## first\n\n## second\n`);
  });

  it('keeps an existing header as it is', () => {
    const file = join(dir, 'BENCHMARKS.md');
    writeFileSync(file, '# Our numbers\n\nhand-written intro');
    appendSection(file, '## run\n');
    expect(readFileSync(file, 'utf8')).toBe('# Our numbers\n\nhand-written intro\n\n## run\n');
  });
});

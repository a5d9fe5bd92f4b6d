import { ConfigError } from '@svc/config';
import { BENCH_STACK_ENV, benchStackEnv, loadBenchSettings } from './bench-settings';

describe('loadBenchSettings', () => {
  it('defaults to scale 20, 60 s and 4 clients', () => {
    expect(loadBenchSettings({}, '/repo/BENCHMARKS.md')).toEqual({ scale: 20, durationSeconds: 60, clients: 4, reportFile: '/repo/BENCHMARKS.md', stagers: 1, loaders: 1, batchLimit: null, repeats: 2 });
  });

  it('reads BENCH_SCALE, BENCH_DURATION_S, BENCH_CLIENTS, BENCH_REPORT_FILE, BENCH_STAGERS, BENCH_LOADERS, BENCH_BATCH_LIMIT and BENCH_REPEATS', () => {
    expect(
      loadBenchSettings(
        { BENCH_SCALE: '5', BENCH_DURATION_S: '30', BENCH_CLIENTS: '2', BENCH_REPORT_FILE: '/tmp/b.md', BENCH_STAGERS: '3', BENCH_LOADERS: '2', BENCH_BATCH_LIMIT: '20000', BENCH_REPEATS: '3' },
        'x',
      ),
    ).toEqual({
      scale: 5,
      durationSeconds: 30,
      clients: 2,
      reportFile: '/tmp/b.md',
      stagers: 3,
      loaders: 2,
      batchLimit: 20000,
      repeats: 3,
    });
  });

  it('refuses values that are not positive integers, naming each', () => {
    expect(() => loadBenchSettings({ BENCH_SCALE: 'big', BENCH_DURATION_S: '1', BENCH_CLIENTS: '0' }, 'x')).toThrow(ConfigError);
    try {
      loadBenchSettings({ BENCH_SCALE: 'big', BENCH_DURATION_S: '1', BENCH_CLIENTS: '0' }, 'x');
    } catch (error) {
      expect((error as ConfigError).problems).toHaveLength(3);
    }
  });
});

describe('benchStackEnv', () => {
  it('uses the tuned service settings unless the environment overrides one', () => {
    expect(benchStackEnv({})).toEqual(BENCH_STACK_ENV);
    const env = benchStackEnv({ SEED_PART_MB: '16', UNRELATED: 'x', WORKER_CONCURRENCY: ' ' });
    expect(env['SEED_PART_MB']).toBe('16');
    expect(env['WORKER_CONCURRENCY']).toBe(BENCH_STACK_ENV['WORKER_CONCURRENCY']);
    expect(env).not.toHaveProperty('UNRELATED');
  });
});

import { renderGatewayLoadSection, type GatewayLoadFigure } from './gateway-load-report';
import { loadGatewayLoadSettings } from './gateway-load-settings';

const stats = (p50: number, max: number, count = 10) => ({ count, p50, p95: max, p99: max, max, mean: p50 });

function figure(overrides: Partial<GatewayLoadFigure>): GatewayLoadFigure {
  return {
    load: 'none',
    body: '–',
    health: stats(14, 30),
    healthFailures: 0,
    hostile: stats(Number.NaN, Number.NaN, 0),
    statuses: {},
    sampleAnswer: '',
    gatewayCpuSeconds: 0.2,
    wallSeconds: 15,
    ...overrides,
  };
}

describe('renderGatewayLoadSection', () => {
  const section = renderGatewayLoadSection({
    startedAt: new Date('2026-11-23T07:00:00Z'),
    machine: { cpus: 2, cpuModel: 'Test CPU', memoryBytes: 8 * 1024 ** 3, os: 'Linux 6.1', node: 'v20.20.2', postgres: '15', loadAverage: { start: 0.5, end: 1.25 } },
    settings: { callers: 4, seconds: 15, reportFile: 'x' },
    revision: 'abc1234',
    figures: [
      figure({}),
      figure({
        load: 'xml-elements, signed',
        body: '131,061 empty elements',
        health: stats(4200, 6600, 40),
        hostile: stats(4.5, 6.1, 12),
        statuses: { 400: 11, 0: 1 },
        sampleAnswer: '400 {"messages":[\n "the request has more than 500 fields"]}',
      }),
    ],
    gatewayPeakRssBytes: 120 * 1024 * 1024,
  });

  it('heads the section with the date, the callers and the duration, and names the machine and the commit', () => {
    expect(section).toContain('## 2026-11-23 07:00 UTC — api-gateway under hostile bodies, 4 callers, 15 s each');
    expect(section).toContain('- Machine: 2 CPUs (Test CPU), 8.0 GiB RAM, Linux 6.1, Node.js v20.20.2');
    expect(section).toContain('- Code: abc1234; BENCH_GATEWAY_CALLERS=4');
  });

  it('has one row per load with the /health percentiles in milliseconds and the answers counted by status', () => {
    expect(section).toContain('| none | – | – | – | 10 | 14 | 30 | 30 | 0 | 0.2 |');
    expect(section).toContain('| xml-elements, signed | 131,061 empty elements | 1× no answer, 11× 400 | 4.50 / 6.10 | 40 | 4200 | 6600 | 6600 | 0 | 0.2 |');
  });

  it('quotes what a hostile caller was told, on one line', () => {
    expect(section).toContain('- xml-elements, signed: `400 {"messages":[ "the request has more than 500 fields"]}`');
    expect(section).toContain('Peak RSS (VmHWM) of the api-gateway: 120 MiB.');
  });
});

describe('loadGatewayLoadSettings', () => {
  it('defaults to 4 callers for 15 s and reads BENCH_GATEWAY_CALLERS and BENCH_GATEWAY_SECONDS', () => {
    expect(loadGatewayLoadSettings({}, '/repo/BENCHMARKS.md')).toEqual({ callers: 4, seconds: 15, reportFile: '/repo/BENCHMARKS.md' });
    expect(loadGatewayLoadSettings({ BENCH_GATEWAY_CALLERS: '8', BENCH_GATEWAY_SECONDS: '30' }, 'x')).toEqual({ callers: 8, seconds: 30, reportFile: 'x' });
  });

  it('refuses a caller count that is not a positive integer', () => {
    expect(() => loadGatewayLoadSettings({ BENCH_GATEWAY_CALLERS: '0' }, 'x')).toThrow(/BENCH_GATEWAY_CALLERS/);
  });
});

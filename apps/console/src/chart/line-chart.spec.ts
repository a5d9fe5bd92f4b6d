import { findAll, textOf } from '../render/vnode.js';
import { lineChart, niceMax, pathData } from './line-chart.js';
import { hasPoints, lagSeries, throughputSeries } from './metrics-series.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');
const minute = 60_000;

describe('line chart', () => {
  it('rounds the scale up to 1, 2 or 5 times a power of ten', () => {
    expect([niceMax(0), niceMax(0.7), niceMax(3), niceMax(17), niceMax(200), niceMax(501)]).toEqual([1, 1, 5, 20, 200, 1000]);
  });

  it('breaks the line where a value is missing', () => {
    const points = [
      { t: 0, v: 1 },
      { t: 1, v: 2 },
      { t: 2, v: null },
      { t: 3, v: 4 },
    ];
    expect(pathData(points, (t) => t * 10, (v) => v)).toBe('M0.0 1.0 L10.0 2.0 M30.0 4.0');
  });

  it('draws one path per series over a shared axis, titled with its unit and series names', () => {
    const chart = lineChart(
      [
        { label: '[public].[orders]', points: [{ t: T0, v: 0 }, { t: T0 + minute, v: 10 }] },
        { label: '[public].[<b>x</b>]', points: [{ t: T0, v: 5 }, { t: T0 + minute, v: 7 }] },
      ],
      { title: 'Lag', unit: 's', width: 400, height: 200 },
    );
    expect(chart.svg).toBe(true);
    expect(chart.attrs['viewBox']).toBe('0 0 400 200');
    const paths = findAll(chart, (element) => element.tag === 'path');
    expect(paths).toHaveLength(2);
    // 10 is the top of the scale: the second point of the first series touches the top of the plot (margin 24).
    expect(paths[0]?.attrs['d']).toMatch(/^M64\.0 172\.0 L388\.0 24\.0$/);
    expect(textOf(chart)).toContain('Lag (s)');
    expect(textOf(chart)).toContain('[public].[<b>x</b>]');
    expect(textOf(chart)).toContain('10:00');
    expect(findAll(chart, (element) => element.tag === 'b')).toEqual([]);
  });

  it('draws a lone value as a dot and an empty chart without failing', () => {
    const dot = lineChart([{ label: 'a', points: [{ t: T0, v: 3 }] }], { title: 'Lag', unit: 's' });
    expect(findAll(dot, (element) => element.tag === 'circle')).toHaveLength(1);
    expect(findAll(lineChart([], { title: 'Lag', unit: 's' }), (element) => element.tag === 'path')).toEqual([]);
  });
});

describe('metrics series', () => {
  const history = {
    replicationId: 'r',
    sinceMinutes: 60,
    stepMinutes: 5,
    tables: [
      {
        name: '[public].[orders]',
        points: [
          { at: '2026-11-23T10:00:00Z', cycles: 2, rowsApplied: 500, lagSeconds: 3, maxLagSeconds: 4, avgCycleMs: 100, maxCycleMs: 150 },
          { at: '2026-11-23T10:05:00Z', cycles: 0, rowsApplied: 0 },
        ],
      },
    ],
  };

  it('charts lag with a gap where no cycle ran, and rows applied per minute', () => {
    expect(lagSeries(history)[0]?.points).toEqual([
      { t: Date.parse('2026-11-23T10:00:00Z'), v: 3 },
      { t: Date.parse('2026-11-23T10:05:00Z'), v: null },
    ]);
    expect(throughputSeries(history)[0]?.points.map((point) => point.v)).toEqual([100, 0]);
    expect(hasPoints(history)).toBe(true);
    expect(hasPoints({ ...history, tables: [] })).toBe(false);
  });
});

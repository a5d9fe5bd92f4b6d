import { s, type VElement } from '../render/vnode.js';

export interface ChartPoint {
  /** Epoch milliseconds. */
  t: number;
  /** null: no value in this interval; the line breaks there. */
  v: number | null;
}

export interface ChartSeries {
  label: string;
  points: readonly ChartPoint[];
}

export interface ChartOptions {
  title: string;
  /** Unit text for the y axis, e.g. `s` or `rows/min`. */
  unit: string;
  width?: number;
  height?: number;
  /** Formats a y value for the axis. */
  formatValue?: (value: number) => string;
}

const MARGIN = { top: 24, right: 12, bottom: 28, left: 64 };
const TICKS = 5;
/** Series colours (colour-blind-safe Okabe-Ito); the nth series takes the nth. */
export const SERIES_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

/** The y scale's top: a round number at or above `max` (1, 2, 5 × 10^n), so ticks fall on readable values. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

/** `M x y L x y ...` per run of consecutive values; a null starts a new run. */
export function pathData(points: readonly ChartPoint[], x: (t: number) => number, y: (v: number) => number): string {
  const parts: string[] = [];
  let drawing = false;
  for (const point of points) {
    if (point.v === null) {
      drawing = false;
      continue;
    }
    parts.push(`${drawing ? 'L' : 'M'}${x(point.t).toFixed(1)} ${y(point.v).toFixed(1)}`);
    drawing = true;
  }
  return parts.join(' ');
}

/**
 * A line chart as SVG elements: one line per series over a shared time axis, y from 0. Pure: points in, tree
 * out. A series with a single value is drawn as a dot, since a line needs two.
 */
export function lineChart(series: readonly ChartSeries[], options: ChartOptions): VElement {
  const width = options.width ?? 640;
  const height = options.height ?? 200;
  const format = options.formatValue ?? ((value: number) => String(value));
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const all = series.flatMap((line) => line.points);
  const times = all.map((point) => point.t);
  const values = all.flatMap((point) => (point.v === null ? [] : [point.v]));
  const minT = times.length ? Math.min(...times) : 0;
  const maxT = times.length ? Math.max(...times) : 1;
  const top = niceMax(values.length ? Math.max(...values) : 0);
  const x = (t: number) => MARGIN.left + (maxT === minT ? plotWidth / 2 : ((t - minT) / (maxT - minT)) * plotWidth);
  const y = (v: number) => MARGIN.top + plotHeight - (v / top) * plotHeight;

  const grid = Array.from({ length: TICKS + 1 }, (_, index) => {
    const value = (top / TICKS) * index;
    return s(
      'g.tick',
      null,
      s('line', { attrs: { x1: MARGIN.left, x2: width - MARGIN.right, y1: y(value), y2: y(value), stroke: '#ddd' } }),
      s('text', { attrs: { x: MARGIN.left - 6, y: y(value) + 4, 'text-anchor': 'end', 'font-size': 11 } }, format(value)),
    );
  });
  const lines = series.map((line, index) => {
    const colour = SERIES_COLOURS[index % SERIES_COLOURS.length] ?? '#000';
    const defined = line.points.filter((point) => point.v !== null);
    const drawn =
      defined.length === 1 && defined[0]
        ? s('circle', { attrs: { cx: x(defined[0].t), cy: y(defined[0].v ?? 0), r: 3, fill: colour } })
        : s('path', { attrs: { d: pathData(line.points, x, y), fill: 'none', stroke: colour, 'stroke-width': 2 } });
    return s('g.series', { attrs: { 'data-series': line.label } }, s('title', null, line.label), drawn);
  });
  const timeLabel = (t: number) => new Date(t).toISOString().slice(11, 16);

  return s(
    'svg.chart',
    { attrs: { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': options.title } },
    s('title', null, options.title),
    s('text', { attrs: { x: MARGIN.left, y: 14, 'font-size': 12, 'font-weight': 'bold' } }, `${options.title} (${options.unit})`),
    grid,
    s('line', { attrs: { x1: MARGIN.left, x2: width - MARGIN.right, y1: y(0), y2: y(0), stroke: '#888' } }),
    times.length
      ? [
          s('text', { attrs: { x: MARGIN.left, y: height - 8, 'font-size': 11 } }, timeLabel(minT)),
          s('text', { attrs: { x: width - MARGIN.right, y: height - 8, 'font-size': 11, 'text-anchor': 'end' } }, `${timeLabel(maxT)} UTC`),
        ]
      : [],
    lines,
  );
}

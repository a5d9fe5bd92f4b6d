import type { MetricsHistory } from '../api/wire-types.js';
import type { ChartSeries } from './line-chart.js';

/** Lag of the last cycle of each interval, per table; an interval without a cycle has no lag (a gap). */
export function lagSeries(history: MetricsHistory): ChartSeries[] {
  return history.tables.map((table) => ({
    label: table.name,
    points: table.points.map((point) => ({ t: Date.parse(point.at), v: point.lagSeconds ?? null })),
  }));
}

/** Rows applied per minute, per table. */
export function throughputSeries(history: MetricsHistory): ChartSeries[] {
  const minutes = Math.max(history.stepMinutes, 1);
  return history.tables.map((table) => ({
    label: table.name,
    points: table.points.map((point) => ({ t: Date.parse(point.at), v: point.rowsApplied / minutes })),
  }));
}

/** Whether the history holds anything to draw. */
export function hasPoints(history: MetricsHistory): boolean {
  return history.tables.some((table) => table.points.length > 0);
}

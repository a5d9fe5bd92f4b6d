import type { MetricsHistory } from '../api/wire-types.js';
import { lineChart, SERIES_COLOURS } from '../chart/line-chart.js';
import { hasPoints, lagSeries, throughputSeries } from '../chart/metrics-series.js';
import { formatTick } from '../render/format.js';
import { h, type VElement } from '../render/vnode.js';

/** Lag and throughput over the last hour, or why there is nothing to show. */
export function chartsView(history: MetricsHistory | null, problem: string | null): VElement {
  if (history === null || !hasPoints(history)) {
    return h('div.charts.no-history', null, h('p', null, h('strong', null, 'No history'), problem ? h('span.muted', null, ` (the service answered: ${problem})`) : ' for this period yet.'));
  }
  const lag = lagSeries(history);
  const throughput = throughputSeries(history);
  return h(
    'div.charts',
    null,
    lineChart(lag, { title: 'Lag', unit: 's', formatValue: formatTick }),
    lineChart(throughput, { title: 'Rows applied', unit: 'rows/min', formatValue: formatTick }),
    h(
      'ul.legend',
      null,
      lag.map((series, index) => h('li', null, h('span.swatch', { attrs: { 'data-colour': index % SERIES_COLOURS.length } }), series.label)),
    ),
    h('p.muted', null, `Last ${history.sinceMinutes} min, one point per ${history.stepMinutes} min.`),
  );
}

import type { Alert, DescribedReplication } from '../api/wire-types.js';
import { formatTimestamp } from '../render/format.js';
import { configurationRows } from '../render/secrets.js';
import { h, type VElement } from '../render/vnode.js';
import { badge } from './common.js';

export function summaryView(described: DescribedReplication): VElement {
  return h(
    'section.summary',
    null,
    h('h2', null, described.replicationName, ' ', badge('status', described.status)),
    // What the status alone hides: tables in Error under Running.
    described.statusDetail ? h('p.status-detail.error-text', null, described.statusDetail) : null,
    // Why it moves no data, and which call resumes it.
    described.stoppedReason ? h('p.stopped-reason', null, described.stoppedReason) : null,
    h(
      'dl.facts',
      null,
      h('dt', null, 'ReplicationId'),
      h('dd.id', null, described.replicationId),
      h('dt', null, 'DataReplication'),
      h('dd', null, described.configuration.dataReplication ? 'on' : 'off'),
      h('dt', null, 'Created'),
      h('dd', null, formatTimestamp(described.createdAt)),
      h('dt', null, 'Last change'),
      h('dd', null, formatTimestamp(described.updatedAt)),
      h('dt', null, 'Last error'),
      described.lastError ? h('dd.error-text', null, described.lastError) : h('dd', null, 'none'),
      // Only keys allowed DescribeReplicationErrorDetails get it.
      described.lastErrorDetail ? [h('dt', null, 'Error detail'), h('dd.error-text', null, described.lastErrorDetail)] : null,
    ),
  );
}

export function alertsView(alerts: readonly Alert[]): VElement {
  if (alerts.length === 0) return h('p.empty', null, 'No alerts.');
  const newestFirst = [...alerts].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  return h(
    'ul.alerts',
    null,
    newestFirst.map((alert) =>
      h(
        `li.alert-${alert.state.toLowerCase()}`,
        null,
        badge('phase', alert.kind),
        ' ',
        h('time', { attrs: { datetime: alert.createdAt } }, formatTimestamp(alert.createdAt)),
        ' ',
        h('span.alert-message', null, alert.message),
        // Active alerts are the ones to look at; the others say why they are not any more.
        alert.state === 'Active' ? null : h('span.alert-state', null, ` (${alert.state}${alert.resolution ? `: ${alert.resolution}` : ''})`),
        deliveriesView(alert),
      ),
    ),
  );
}

/** Where the alert was sent (PutAlertTarget) and how that went: delivered, retrying with why, or given up. */
function deliveriesView(alert: Alert): VElement | null {
  const deliveries = alert.deliveries ?? [];
  if (deliveries.length === 0) return null;
  return h(
    'ul.alert-deliveries',
    null,
    deliveries.map((delivery) =>
      h(
        `li.delivery-${delivery.state.toLowerCase()}`,
        null,
        `${delivery.target}: ${delivery.state}`,
        delivery.deliveredAt ? ` ${formatTimestamp(delivery.deliveredAt)}` : '',
        delivery.state === 'Delivered' ? '' : ` after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`,
        delivery.lastError ? h('span.delivery-error', null, ` (${delivery.lastError})`) : null,
        delivery.nextAttemptAt ? ` — next try ${formatTimestamp(delivery.nextAttemptAt)}` : '',
      ),
    ),
  );
}

/** The stored configuration, secrets masked (configurationRows masks every secret field whatever the server sent). */
export function configurationView(described: DescribedReplication): VElement {
  return h(
    'table.configuration',
    null,
    h('tbody', null, configurationRows(described.configuration).map((row) => h('tr', null, h('th', { attrs: { scope: 'row' } }, row.label), h('td', null, row.value)))),
  );
}

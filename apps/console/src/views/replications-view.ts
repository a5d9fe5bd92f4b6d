import type { DescribedReplication } from '../api/wire-types.js';
import { formatLag } from '../render/format.js';
import { h, type VElement } from '../render/vnode.js';
import { badge, link } from './common.js';

/** One replication as the list shows it: Describe's answer, or the reason it could not be described. */
export type ListedReplication = { replicationId: string; replicationName: string; status: string; described: DescribedReplication | null; problem: string | null };

/** `Seeding 1 · Tracking 3`, in the order of the phases' lifecycle. */
const PHASE_ORDER = ['Pending', 'Seeding', 'Reseeding', 'Tracking', 'Untracked', 'Error'];

export function phaseCounts(described: DescribedReplication): [string, number][] {
  const counts = new Map<string, number>();
  for (const table of described.tables) counts.set(table.phase, (counts.get(table.phase) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => PHASE_ORDER.indexOf(a) - PHASE_ORDER.indexOf(b));
}

export function worstLag(described: DescribedReplication): number | undefined {
  const lags = described.tables.flatMap((table) => (table.lagSeconds === undefined ? [] : [table.lagSeconds]));
  return lags.length ? Math.max(...lags) : undefined;
}

export function replicationsTable(replications: readonly ListedReplication[]): VElement {
  if (replications.length === 0) return h('p.empty', null, 'No replications yet.');
  return h(
    'table.replications',
    null,
    h('thead', null, h('tr', null, ['Name', 'Status', 'Tables by phase', 'Worst lag', 'Alerts', 'Last error'].map((title) => h('th', null, title)))),
    h(
      'tbody',
      null,
      replications.map((replication) => {
        const described = replication.described;
        return h(
          'tr',
          { attrs: { 'data-replication-id': replication.replicationId } },
          h('td', null, link({ page: 'detail', replicationId: replication.replicationId }, replication.replicationName), h('div.id', null, replication.replicationId)),
          h(
            'td',
            null,
            badge('status', described?.status ?? replication.status),
            described?.statusDetail ? h('div.status-detail.error-text', null, `${described.tablesInError} of ${described.tableCount} tables in Error`) : null,
          ),
          h(
            'td.phases',
            null,
            described ? phaseCounts(described).map(([phase, count]) => h('span.phase-count', null, badge('phase', phase), ` ${count}`)) : h('span.muted', null, replication.problem ?? '—'),
          ),
          h('td.num', null, described ? formatLag(worstLag(described)) : '—'),
          h('td', null, described ? alertSummary(described) : '—'),
          h('td.error-text', null, described?.lastError ?? ''),
        );
      }),
    ),
  );
}

function alertSummary(described: DescribedReplication): string {
  const active = described.alerts.filter((alert) => alert.state === 'Active');
  if (active.length === 0) return described.alerts.length === 0 ? 'none' : 'none active';
  const latest = active.reduce((newest, alert) => (alert.createdAt > newest.createdAt ? alert : newest));
  return `${active.length} active (latest: ${latest.kind})`;
}

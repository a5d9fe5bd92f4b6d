import type { DescribedReplication, MetricsHistory, MetricsRequest } from '../api/wire-types.js';
import { Poller } from '../app/poller.js';
import type { Page, PageContext } from '../app/page-context.js';
import { render } from '../render/dom.js';
import { SeedProgressTracker, type SeedProgress } from '../render/seed-progress.js';
import { h, type Child, type VElement } from '../render/vnode.js';
import { chartsView } from '../views/charts-view.js';
import { actionButton, link, noticeView, type Notice } from '../views/common.js';
import { alertsView, configurationView, summaryView } from '../views/replication-views.js';
import { tableDetailView, tablesView } from '../views/tables-view.js';
import { showValidationPanel } from './validation-panel.js';

/** How much of the ReplicationId a delete is confirmed with: enough to tell any two apart. */
const DELETE_CONFIRMATION_LENGTH = 8;

const REFRESH_MS = 2000;
const HISTORY_REFRESH_MS = 30_000;
const HISTORY_MINUTES = 60;

/**
 * One replication (or, with `focusTable`, one of its tables): status, tables with seeding progress, lag, its latest
 * validation, alerts, configuration, lag and throughput charts, and the actions the key may take.
 */
export function showDetailPage(container: Element, context: PageContext, replicationId: string, focusTable: string | null): Page {
  const { client } = context;
  const tracker = new SeedProgressTracker();
  const section = (id: string, title: string | null) => h(`section#${id}`, null, title ? h('h3', null, title) : null, h('div.body'));
  render(
    container,
    h('nav.breadcrumb#breadcrumb'),
    h('div#notice'),
    h('div#summary'),
    h('div#actions.actions'),
    focusTable === null
      ? [section('tables', 'Tables'), h('section#validation'), section('history', 'Lag and throughput'), section('alerts', 'Alerts'), section('configuration', 'Configuration (secrets masked)'), h('section#delete')]
      : [section('table', null), h('section#validation'), section('history', 'Lag and throughput')],
  );
  const area = (selector: string) => container.querySelector(selector);
  const validationSection = area('#validation');
  const validation = validationSection === null ? null : showValidationPanel(validationSection, context, replicationId, focusTable);
  let latest: DescribedReplication | null = null;
  let notice: Notice = null;
  let actionsKey = '';

  const poller = new Poller(async () => {
    const described = await client.call<DescribedReplication>('DescribeWarehouseReplication', { replicationId });
    if (!described.ok) {
      renderInto('#summary', h('p.notice.error', { attrs: { role: 'alert' } }, described.messages.join('; ')), h('p', null, link({ page: 'list' }, 'Back to the replications')));
      return;
    }
    const first = latest === null;
    latest = described.value;
    const now = context.now();
    const progress = new Map<string, SeedProgress>();
    for (const table of latest.tables) {
      const seeding = tracker.observe(table, now.getTime());
      if (seeding) progress.set(table.name, seeding);
    }
    renderInto('#breadcrumb', breadcrumb(latest, focusTable));
    renderInto('#summary', summaryView(latest));
    if (focusTable === null) {
      renderInto('#tables .body', tablesView(replicationId, latest.tables, progress, now));
      renderInto('#alerts .body', alertsView(latest.alerts));
      renderInto('#configuration .body', configurationView(latest));
      if (first) drawDelete(latest);
    } else {
      const table = latest.tables.find((candidate) => candidate.name === focusTable);
      renderInto('#table .body', table ? tableDetailView(table, progress.get(table.name), now) : h('p.notice.error', null, 'This replication has no such table.'));
    }
    drawActions();
  }, REFRESH_MS).start();

  const history = new Poller(async () => {
    const request: MetricsRequest = { replicationId, sinceMinutes: HISTORY_MINUTES, ...(focusTable !== null && { tableName: focusTable }) };
    const result = await client.call<MetricsHistory>('GetReplicationMetrics', request);
    renderInto('#history .body', result.ok && result.value !== null ? chartsView(result.value, null) : chartsView(null, result.ok ? 'empty answer' : result.messages.join('; ')));
  }, HISTORY_REFRESH_MS).start();

  function renderInto(selector: string, ...nodes: Child[]): void {
    const target = area(selector);
    if (target) render(target, ...nodes);
  }

  async function act(operation: 'AlterWarehouseReplication' | 'StartReplication' | 'AcknowledgeAlerts', body: object, done: string): Promise<void> {
    const result = await client.call(operation, { replicationId, ...body });
    notice = result.ok ? { kind: 'ok', messages: [done] } : { kind: 'error', messages: result.messages };
    actionsKey = '';
    renderInto('#notice', noticeView(notice));
    poller.refresh();
  }

  /** Drawn again only when what it depends on changes, so a click is never lost to a refresh. */
  function drawActions(): void {
    if (latest === null) return;
    const dataReplication = latest.configuration.dataReplication;
    const activeAlerts = latest.alerts.filter((alert) => alert.state === 'Active').length;
    const key = `${latest.status}|${dataReplication}|${activeAlerts}`;
    if (key === actionsKey) return;
    actionsKey = key;
    const { permissions } = context;
    renderInto(
      '#actions',
      h(
        'div',
        null,
        actionButton(
          permissions,
          'AlterWarehouseReplication',
          dataReplication ? 'Turn DataReplication off' : 'Turn DataReplication on',
          () => void act('AlterWarehouseReplication', { dataReplication: !dataReplication }, `DataReplication is now ${dataReplication ? 'off' : 'on'}.`),
          { id: 'toggle-data-replication' },
        ),
        latest.status === 'Failed'
          ? actionButton(permissions, 'StartReplication', 'Start this replication again', () => void act('StartReplication', {}, 'StartReplication sent: the replication is retried.'), { id: 'start-replication' })
          : null,
        activeAlerts > 0
          ? actionButton(permissions, 'AcknowledgeAlerts', `Acknowledge ${activeAlerts} active alert${activeAlerts === 1 ? '' : 's'}`, () => void act('AcknowledgeAlerts', {}, 'The active alerts are acknowledged.'), {
              id: 'acknowledge-alerts',
            })
          : null,
        h('span.action', null, link({ page: 'alter', replicationId }, h('span.button-link', null, 'Alter settings'))),
      ),
    );
  }

  function drawDelete(described: DescribedReplication): void {
    const permission = context.permissions.DeleteWarehouseReplication;
    const reason = permission.allowed ? null : permission.reason;
    // Names may repeat (they default to the source database's): the id's first characters say which one is meant.
    const expected = described.replicationId.slice(0, DELETE_CONFIRMATION_LENGTH);
    renderInto(
      '#delete',
      h(
        'form.danger-zone#delete-form',
        {
          attrs: { autocomplete: 'off' },
          on: {
            input: (event) => {
              const form = event.currentTarget as HTMLFormElement;
              const button = form.querySelector('button');
              const typed = form.querySelector('input')?.value ?? '';
              if (button) button.disabled = reason !== null || typed !== expected;
            },
            submit: (event) => {
              event.preventDefault();
              const typed = (event.currentTarget as HTMLFormElement).querySelector('input')?.value ?? '';
              if (typed !== expected || reason !== null) return;
              void client.call('DeleteWarehouseReplication', { replicationId }).then((result) => {
                if (result.ok) context.navigate({ page: 'list' });
                else renderInto('#notice', noticeView({ kind: 'error', messages: result.messages }));
              });
            },
          },
        },
        h('h3', null, 'Delete this replication'),
        h(
          'p',
          null,
          `Stops the job and removes its state and its change capture from the source; the warehouse data stays. To confirm, type the first ${DELETE_CONFIRMATION_LENGTH} characters of the ReplicationId of `,
          h('strong', null, described.replicationName),
          ', ',
          h('code', null, expected),
          '.',
        ),
        reason !== null ? h('p.denied', null, reason) : null,
        h('label', { attrs: { for: 'delete-confirmation' } }, `ReplicationId, first ${DELETE_CONFIRMATION_LENGTH} characters`),
        h('input#delete-confirmation', { attrs: { name: 'confirmation', disabled: reason !== null, spellcheck: 'false' } }),
        h('button.danger', { attrs: { type: 'submit', disabled: true, title: reason ?? undefined } }, 'Delete replication'),
      ),
    );
  }

  return {
    dispose: () => {
      poller.stop();
      history.stop();
      validation?.dispose();
    },
  };
}

function breadcrumb(described: DescribedReplication, focusTable: string | null): VElement {
  return h(
    'span',
    null,
    link({ page: 'list' }, 'Replications'),
    ' › ',
    focusTable === null ? described.replicationName : link({ page: 'detail', replicationId: described.replicationId }, described.replicationName),
    focusTable === null ? null : [' › ', h('span.table-name', null, focusTable)],
  );
}

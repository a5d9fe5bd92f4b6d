import type { ReplicationList, DescribedReplication } from '../api/wire-types.js';
import { Poller } from '../app/poller.js';
import type { Page, PageContext } from '../app/page-context.js';
import { formValues, formView } from '../forms/form-view.js';
import { formBody, type FieldSpec } from '../forms/form-spec.js';
import { render } from '../render/dom.js';
import { splitFieldErrors, type FieldErrors } from '../render/field-errors.js';
import { h } from '../render/vnode.js';
import { actionButton, link, noticeView, type Notice } from '../views/common.js';
import { replicationsTable, type ListedReplication } from '../views/replications-view.js';

const REFRESH_MS = 2000;

const CONFIGURATION_FIELDS: readonly FieldSpec[] = [
  { path: ['SerializeReplications'], kind: 'boolean', choices: ['false', 'true'], hint: 'run one replication at a time', optional: true },
  { path: ['ParallelDatabaseReplicationsLimit'], kind: 'integer', hint: 'replications running at once (1 = serialized)' },
];

/** Every replication with its tables by phase, worst lag and alerts, refreshed every 2 s; service-wide actions. */
export function showListPage(container: Element, context: PageContext): Page {
  const { client, permissions } = context;
  const listArea = h('div#replications');
  const serviceArea = h('section#service');
  render(container, h('section', null, h('h2', null, 'Replications ', link({ page: 'create' }, h('span.button-link', null, 'Create a replication'))), h('p.updated#updated'), listArea), serviceArea);
  const list = container.querySelector('#replications');
  const updated = container.querySelector('#updated');
  const service = container.querySelector('#service');
  let notice: Notice = null;
  let configurationErrors: FieldErrors | null = null;
  let configurationValues = new Map<string, string>();

  const poller = new Poller(async () => {
    const listed = await client.call<ReplicationList>('ListWarehouseReplications', {});
    if (!listed.ok) {
      if (list) render(list, h('p.notice.error', { attrs: { role: 'alert' } }, listed.messages.join('; ')));
      return;
    }
    const replications: ListedReplication[] = await Promise.all(
      listed.value.replications.map(async (summary) => {
        const described = await client.call<DescribedReplication>('DescribeWarehouseReplication', { replicationId: summary.replicationId });
        return { ...summary, described: described.ok ? described.value : null, problem: described.ok ? null : described.messages.join('; ') };
      }),
    );
    if (list) render(list, replicationsTable(replications));
    if (updated) updated.textContent = `Updated ${context.now().toLocaleTimeString()} · refreshed every ${REFRESH_MS / 1000} s`;
  }, REFRESH_MS).start();

  const act = async (operation: 'StopReplicationService' | 'StartReplication', done: string) => {
    const result = await client.call(operation, {});
    notice = result.ok ? { kind: 'ok', messages: [done] } : { kind: 'error', messages: result.messages };
    drawService();
    poller.refresh();
  };

  const submitConfiguration = async (form: HTMLFormElement) => {
    configurationValues = formValues(form);
    const result = await client.call('AlterConfiguration', formBody(CONFIGURATION_FIELDS, configurationValues));
    configurationErrors = result.ok ? null : splitFieldErrors(result.messages, new Set(CONFIGURATION_FIELDS.map((field) => field.path.join('\\'))));
    notice = result.ok ? { kind: 'ok', messages: ['Service configuration changed.'] } : null;
    drawService();
  };

  function drawService(): void {
    if (!service) return;
    const denied = permissions.AlterConfiguration;
    render(
      service,
      h('h2', null, 'Service'),
      noticeView(notice),
      h(
        'div.actions',
        null,
        actionButton(permissions, 'StopReplicationService', 'Stop replication service', () => void act('StopReplicationService', 'The replication service is stopped: no data moves until it is started.'), { danger: true, id: 'stop-service' }),
        actionButton(permissions, 'StartReplication', 'Start replication service', () => void act('StartReplication', 'The replication service is started.'), { id: 'start-service' }),
      ),
      h('h3', null, 'AlterConfiguration'),
      formView({
        id: 'configuration',
        operation: 'AlterConfiguration',
        fields: CONFIGURATION_FIELDS,
        values: configurationValues,
        errors: configurationErrors,
        submitLabel: 'Change configuration',
        disabledReason: denied.allowed ? null : denied.reason,
        onSubmit: (form) => void submitConfiguration(form),
      }),
    );
  }
  drawService();
  return { dispose: () => poller.stop() };
}

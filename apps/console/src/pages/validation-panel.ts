import { permissionFrom } from '../api/permissions.js';
import type { DescribedValidation, RepairQueued, ValidationStarted } from '../api/wire-types.js';
import type { Page, PageContext } from '../app/page-context.js';
import { Poller } from '../app/poller.js';
import { fieldLabel, formBody } from '../forms/form-spec.js';
import { formValues, formView } from '../forms/form-view.js';
import { VALIDATE_FIELDS } from '../forms/validation-fields.js';
import { render } from '../render/dom.js';
import { splitFieldErrors, type FieldErrors } from '../render/field-errors.js';
import { mismatchedTableNames, validationIsLive } from '../render/validation-format.js';
import { h, type Child } from '../render/vnode.js';
import { apiErrorView } from '../views/api-errors.js';
import { noticeView, type Notice } from '../views/common.js';
import { noValidationView, repairView, validationView } from '../views/validation-view.js';

/** While a table is compared or repaired the panel follows it as the page follows a seed; otherwise it looks now and then (a schedule or the CLI may start one). */
const LIVE_REFRESH_MS = 2000;
const IDLE_REFRESH_MS = 15_000;

const NOT_VALIDATED = /has not been validated yet/;

/**
 * The replication's latest validation (DescribeReplicationValidation without ValidationId), per table; Validate
 * (StartReplicationValidation, optionally some tables) and Repair of its Mismatched tables (RepairReplication),
 * confirmed first. Draws into `section`, which holds `.validate`, `.repair`, `.notice-area` and `.body`. With
 * `onlyTable` (a table's page) it shows and repairs that table alone, and Validate names it.
 */
export function showValidationPanel(section: Element, context: PageContext, replicationId: string, onlyTable: string | null = null): Page {
  const { client, permissions } = context;
  render(section, h('h3', null, 'Validation'), h('div.notice-area'), h('div.validate'), h('div.repair.actions'), h('div.body'));
  const area = (selector: string) => section.querySelector(selector);
  const renderInto = (selector: string, ...nodes: Child[]) => {
    const target = area(selector);
    if (target) render(target, ...nodes);
  };
  let latest: DescribedValidation | null = null;
  let values = new Map<string, string>(onlyTable === null ? [] : [['tablesToInclude', onlyTable]]);
  let validateErrors: FieldErrors | null = null;
  let starting = false;
  let confirmingRepair = false;
  let repairing = false;
  let repairKey = '';

  const poller = new Poller(
    async () => {
      const described = await client.call<DescribedValidation>('DescribeReplicationValidation', { replicationId });
      if (described.ok) {
        latest = onlyTable === null ? described.value : { ...described.value, tables: described.value.tables.filter((table) => table.name === onlyTable) };
        renderInto('.body', validationView(latest, context.now()));
      } else {
        latest = null;
        const permission = permissionFrom(described);
        if (!permission.allowed) renderInto('.body', h('p.denied', { attrs: { role: 'note' } }, `Validations are not available to this access key: ${permission.reason}`));
        else if (described.status === 404 && described.messages.some((message) => NOT_VALIDATED.test(message))) renderInto('.body', noValidationView());
        else renderInto('.body', apiErrorView('DescribeReplicationValidation', described.messages));
      }
      drawRepair();
    },
    () => (latest !== null && validationIsLive(latest) ? LIVE_REFRESH_MS : IDLE_REFRESH_MS),
  ).start();

  function showNotice(notice: Notice): void {
    renderInto('.notice-area', noticeView(notice));
  }

  async function startValidation(form: HTMLFormElement): Promise<void> {
    if (starting) return;
    values = formValues(form);
    starting = true;
    drawValidate();
    const result = await client.call<ValidationStarted>('StartReplicationValidation', formBody(VALIDATE_FIELDS, values, { replicationId }));
    starting = false;
    validateErrors = result.ok ? null : splitFieldErrors(result.messages, new Set(VALIDATE_FIELDS.map(fieldLabel)));
    showNotice(result.ok ? { kind: 'ok', messages: [`Validation ${result.value.validationId} started.`] } : null);
    drawValidate();
    if (result.ok) poller.refresh();
  }

  async function repair(validationId: string, tables: string[]): Promise<void> {
    if (repairing) return;
    repairing = true;
    drawRepair();
    const result = await client.call<RepairQueued>('RepairReplication', { replicationId, validationId, tablesToInclude: tables });
    repairing = false;
    confirmingRepair = false;
    if (result.ok) showNotice({ kind: 'ok', messages: [`Repair queued for ${result.value.tables.join(', ')}.`] });
    else renderInto('.notice-area', apiErrorView('RepairReplication', result.messages));
    drawRepair();
    poller.refresh();
  }

  function drawValidate(): void {
    const permission = permissions.StartReplicationValidation;
    renderInto(
      '.validate',
      formView({
        id: 'validate-form',
        operation: 'StartReplicationValidation',
        fields: VALIDATE_FIELDS,
        values,
        errors: validateErrors,
        submitLabel: starting ? 'Starting…' : 'Validate',
        disabledReason: permission.allowed ? null : permission.reason,
        onSubmit: (form) => void startValidation(form),
      }),
    );
  }

  /** Drawn again only when what it shows changes, so that a click is never lost to a refresh. */
  function drawRepair(): void {
    const validationId = latest?.validationId ?? null;
    const tables = latest === null ? [] : mismatchedTableNames(latest);
    const key = `${validationId}|${tables.join('\n')}|${confirmingRepair}|${repairing}`;
    if (key === repairKey) return;
    repairKey = key;
    if (validationId === null || tables.length === 0) confirmingRepair = false;
    renderInto(
      '.repair',
      repairView({
        permissions,
        tables,
        confirming: confirmingRepair,
        sending: repairing,
        onAsk: () => {
          confirmingRepair = true;
          drawRepair();
        },
        onConfirm: () => {
          if (validationId !== null) void repair(validationId, tables);
        },
        onCancel: () => {
          confirmingRepair = false;
          drawRepair();
        },
      }),
    );
  }

  drawValidate();
  drawRepair();
  return { dispose: () => poller.stop() };
}

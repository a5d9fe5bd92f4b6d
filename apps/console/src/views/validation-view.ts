import type { DescribedValidation, ValidatedTable } from '../api/wire-types.js';
import { formatCount, formatTimestamp } from '../render/format.js';
import { formatKey, progressText, validationProgress } from '../render/validation-format.js';
import { h, type VElement } from '../render/vnode.js';
import type { Permissions } from '../api/permissions.js';
import { actionButton, badge } from './common.js';
import { progressView } from './tables-view.js';

const COLUMNS = ['Table', 'State', 'Progress', 'Missing', 'Extra', 'Different', 'Unsettled', 'First differing keys', 'Started', 'Ended'];

/** The latest validation, a row per table: state and reason, progress, differences by kind and the first differing keys (keys only). */
export function validationView(described: DescribedValidation, now: Date): VElement {
  return h(
    'div.validation',
    { attrs: { 'data-validation-id': described.validationId } },
    h(
      'p.muted',
      null,
      described.scheduled ? 'Scheduled validation ' : 'Validation ',
      h('code.validation-id', null, described.validationId),
      ', requested ',
      h('time', { attrs: { datetime: described.requestedAt } }, formatTimestamp(described.requestedAt)),
      '.',
    ),
    described.tables.length === 0
      ? h('p.empty', null, 'It did not compare this table.')
      : h(
          'table.validation-tables',
          null,
          h('thead', null, h('tr', null, COLUMNS.map((title) => h('th', null, title)))),
          h('tbody', null, described.tables.map((table) => tableRow(table, now))),
        ),
  );
}

function tableRow(table: ValidatedTable, now: Date): VElement {
  const progress = validationProgress(table, now);
  return h(
    'tr',
    { attrs: { 'data-table': table.name, 'data-state': table.state } },
    h('td.table-name', null, table.name),
    h('td.validation-state', null, badge('state', table.state), table.reason !== undefined ? h('div.reason', null, table.reason) : null),
    h('td.validation-progress', null, progress ? progressView(progress) : progressText(table)),
    h('td.num.missing-keys', null, formatCount(table.missingKeys)),
    h('td.num.extra-keys', null, formatCount(table.extraKeys)),
    h('td.num.different-keys', null, formatCount(table.differentKeys)),
    h('td.num.unsettled-keys', null, formatCount(table.unsettledKeys)),
    h('td.differing-keys', null, differingKeysView(table)),
    h('td', null, timeView(table.startedAt)),
    h('td', null, timeView(table.endedAt)),
  );
}

function differingKeysView(table: ValidatedTable): VElement | string {
  if (table.differingKeys.length === 0) return table.mismatchedKeys > 0 ? `${formatCount(table.mismatchedKeys)} (no key to show)` : '—';
  const more = table.mismatchedKeys - table.differingKeys.length;
  return h(
    'ul.keys',
    null,
    table.differingKeys.map((found) => h('li', { attrs: { 'data-difference': found.difference } }, h('code.key', null, formatKey(found.key)), ' ', h('span.difference', null, found.difference))),
    more > 0 ? h('li.muted', null, `and ${formatCount(more)} more`) : null,
  );
}

function timeView(iso: string | undefined): VElement | string {
  return iso === undefined ? '—' : h('time', { attrs: { datetime: iso } }, formatTimestamp(iso));
}

/** The panel before any validation, or when the key may not read them. */
export function noValidationView(): VElement {
  return h('p.empty', null, 'Not validated yet. Validate compares each table of the warehouse with its source, keys only, while replication runs.');
}

export interface RepairViewOptions {
  permissions: Permissions;
  /** The Mismatched tables of the latest validation: what Repair takes. */
  tables: readonly string[];
  /** Asked to confirm: the tables are named, with what repairing them does. */
  confirming: boolean;
  sending: boolean;
  onAsk: () => void;
  onConfirm: () => void;
  onCancel: () => void;
}

/** Repair: a button while there are Mismatched tables, then a confirmation that names them, since it rewrites warehouse rows. */
export function repairView(options: RepairViewOptions): VElement {
  const { tables } = options;
  if (!options.confirming || tables.length === 0) {
    return actionButton(options.permissions, 'RepairReplication', tables.length > 0 ? `Repair ${tables.length} mismatched table(s)…` : 'Repair', () => options.onAsk(), {
      danger: true,
      id: 'repair-validation',
      unavailable: tables.length === 0 ? 'the latest validation found no Mismatched table' : null,
    });
  }
  return h(
    'div.danger-zone#repair-confirmation',
    { attrs: { role: 'group', 'aria-label': 'Confirm the repair' } },
    h('p', null, 'Repair rewrites the differing rows of these tables in the warehouse from the source, through an ordinary change cycle, then compares them again:'),
    h('ul', null, tables.map((table) => h('li.table-name', null, table))),
    h('p.muted', null, 'A table whose difference is too large to repair key by key, or without a key, is reseeded instead, with a Reseed alert saying why.'),
    h(
      'div.actions',
      null,
      h('button.danger#confirm-repair', { attrs: { type: 'button', disabled: options.sending }, on: { click: () => options.onConfirm() } }, options.sending ? 'Repairing…' : `Repair ${tables.length} table(s)`),
      h('button#cancel-repair', { attrs: { type: 'button', disabled: options.sending }, on: { click: () => options.onCancel() } }, 'Cancel'),
    ),
  );
}

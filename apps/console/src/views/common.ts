import type { ActionOperation } from '../api/operations.js';
import type { Permissions } from '../api/permissions.js';
import { routeHash, type Route } from '../app/routes.js';
import { h, type Child, type Handler, type VElement } from '../render/vnode.js';

export function link(route: Route, ...children: Child[]): VElement {
  return h('a', { attrs: { href: routeHash(route) } }, ...children);
}

export function badge(kind: 'status' | 'phase' | 'state', value: string): VElement {
  return h(`span.badge.${kind}-${value.toLowerCase().replace(/[^a-z]/g, '')}`, null, value);
}

/**
 * A button for an operation that changes something. A key that may not call it sees it disabled, with the
 * gateway's own refusal as the reason, next to it and as the tooltip; `unavailable` disables it for a reason of the
 * moment (nothing to act on), shown as a hint.
 */
export function actionButton(
  permissions: Permissions,
  operation: ActionOperation,
  label: string,
  onClick: Handler,
  options: { danger?: boolean; id?: string; unavailable?: string | null } = {},
): VElement {
  const permission = permissions[operation];
  const denied = permission.allowed ? null : permission.reason;
  const reason = denied ?? options.unavailable ?? null;
  return h(
    'span.action',
    { attrs: { 'data-operation': operation } },
    h(`button${options.danger ? '.danger' : ''}`, { attrs: { type: 'button', id: options.id, disabled: reason !== null, title: reason ?? undefined }, on: reason === null ? { click: onClick } : {} }, label),
    denied !== null ? h('span.denied', null, denied) : reason !== null ? h('span.hint', null, reason) : null,
  );
}

export type Notice = { kind: 'ok' | 'error'; messages: string[] } | null;

export function noticeView(notice: Notice): VElement | null {
  if (notice === null) return null;
  return h(`div.notice.${notice.kind}`, { attrs: { role: notice.kind === 'error' ? 'alert' : 'status' } }, notice.messages.map((message) => h('p', null, message)));
}

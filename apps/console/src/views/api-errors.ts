import { referenceHref } from '../forms/form-spec.js';
import { fieldNamed } from '../render/field-errors.js';
import { h, type VElement } from '../render/vnode.js';

/**
 * The messages of a refused call that has no form, each beside a link to the rule of the field it names
 * (`{TablesToInclude}: …` → the TablesToInclude row of the operation's reference).
 */
export function apiErrorView(operation: string, messages: readonly string[]): VElement {
  return h(
    'div.notice.error',
    { attrs: { role: 'alert' } },
    messages.map((message) => {
      const field = fieldNamed(message);
      return h(
        'p',
        null,
        message,
        field === null ? null : [' ', h('a.reference-link', { attrs: { href: referenceHref(operation, { path: field.split('\\') }), target: '_blank', rel: 'noopener', title: `The rule of ${field}` } }, 'rule')],
      );
    }),
  );
}

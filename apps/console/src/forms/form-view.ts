import type { FieldErrors } from '../render/field-errors.js';
import { h, type Child, type VElement } from '../render/vnode.js';
import { controlName, fieldLabel, referenceHref, type FieldSpec } from './form-spec.js';

export interface FormViewOptions {
  id: string;
  fields: readonly FieldSpec[];
  /** What the user typed, by control name; a Create field falls back to its preset. */
  values: ReadonlyMap<string, string>;
  errors: FieldErrors | null;
  submitLabel: string;
  /** Set when the key may not call the operation: the form is shown, disabled, with the reason. */
  disabledReason: string | null;
  onSubmit: (form: HTMLFormElement) => void;
  /** The operation whose fields these are: each field links to its row of the API reference. */
  operation: string;
}

/** A form drawn from its field specs; each field's server errors sit right under it. */
export function formView(options: FormViewOptions): VElement {
  const disabled = options.disabledReason !== null;
  // Runs of fields of one group, in the order given (the API reference's), each group in a fieldset.
  const groups: [string, FieldSpec[]][] = [];
  for (const field of options.fields) {
    const group = field.path.length > 1 ? (field.path[0] ?? '') : '';
    const last = groups[groups.length - 1];
    if (last && last[0] === group) last[1].push(field);
    else groups.push([group, [field]]);
  }
  const fieldNodes = (fields: FieldSpec[]) => fields.map((field) => fieldView(options, field, disabled));
  return h(
    'form.api-form',
    {
      attrs: { id: options.id, novalidate: true, autocomplete: 'off' },
      on: {
        submit: (event) => {
          event.preventDefault();
          options.onSubmit(event.currentTarget as HTMLFormElement);
        },
      },
    },
    disabled ? h('p.denied', { attrs: { role: 'note' } }, `Not available to this access key: ${options.disabledReason ?? ''}`) : null,
    options.errors?.general.length
      ? h('ul.form-errors', { attrs: { role: 'alert' } }, options.errors.general.map((message) => h('li', null, message)))
      : null,
    groups.map(([group, fields]) => (group === '' ? fieldNodes(fields) : h('fieldset', null, h('legend', null, group), fieldNodes(fields)))),
    h('button', { attrs: { type: 'submit', disabled, title: options.disabledReason ?? undefined } }, options.submitLabel),
  );
}

function fieldView(options: FormViewOptions, field: FieldSpec, disabled: boolean): VElement {
  const name = controlName(field);
  const label = fieldLabel(field);
  const id = `${options.id}-${name.replace(/\./g, '-')}`;
  const value = options.values.get(name) ?? field.initial ?? '';
  const reasons = options.errors?.byField.get(label) ?? [];
  const invalid = reasons.length > 0;
  return h(
    'div.field',
    { attrs: { 'data-field': label, class: invalid ? 'invalid' : undefined } },
    h('label', { attrs: { for: id } }, h('span.field-name', null, field.path[field.path.length - 1] ?? label), h('span.hint', null, field.hint)),
    h('a.reference-link', { attrs: { href: referenceHref(options.operation, field), target: '_blank', rel: 'noopener', title: `The rule and default of ${label}` } }, 'rule'),
    control(field, { id, name, value, disabled, invalid }),
    invalid ? h('p.field-error', { attrs: { id: `${id}-error`, role: 'alert' } }, reasons.map((reason) => h('span', null, reason))) : null,
  );
}

function control(field: FieldSpec, state: { id: string; name: string; value: string; disabled: boolean; invalid: boolean }): VElement {
  const attrs = {
    id: state.id,
    name: state.name,
    disabled: state.disabled,
    'aria-invalid': state.invalid ? 'true' : undefined,
    'aria-describedby': state.invalid ? `${state.id}-error` : undefined,
  };
  if (field.kind === 'boolean' || field.kind === 'choice') {
    const choices: Child[] = [];
    if (field.optional) choices.push(h('option', { attrs: { value: '', selected: state.value === '' } }, '(unchanged)'));
    for (const choice of field.choices ?? []) choices.push(h('option', { attrs: { value: choice, selected: state.value === choice } }, choice));
    return h('select', { attrs }, choices);
  }
  const last = field.path[field.path.length - 1] ?? '';
  const type = field.kind === 'integer' ? 'text' : field.kind === 'secret' && /Password|SecretKey/.test(last) ? 'password' : 'text';
  return h('input', {
    attrs: { ...attrs, type, value: state.value, inputmode: field.kind === 'integer' ? 'numeric' : undefined, spellcheck: 'false', autocomplete: field.kind === 'secret' ? 'new-password' : 'off' },
  });
}

/** The values a form holds, by control name. */
export function formValues(form: HTMLFormElement): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of new FormData(form)) if (typeof value === 'string') values.set(name, value);
  return values;
}

import type { ActionOperation } from '../api/operations.js';
import type { Page, PageContext } from '../app/page-context.js';
import type { Route } from '../app/routes.js';
import { formBody, fieldLabel, referenceHref, type FieldSpec } from '../forms/form-spec.js';
import { formValues, formView } from '../forms/form-view.js';
import { ALTER_FIELDS, CREATE_FIELDS } from '../forms/replication-fields.js';
import { render } from '../render/dom.js';
import { splitFieldErrors, type FieldErrors } from '../render/field-errors.js';
import { h } from '../render/vnode.js';
import { link } from '../views/common.js';

interface FormPageOptions {
  title: string;
  intro: string;
  operation: Extract<ActionOperation, 'CreateWarehouseReplication' | 'AlterWarehouseReplication'>;
  fields: readonly FieldSpec[];
  fixed: Record<string, unknown>;
  submitLabel: string;
  back: Route;
  /** Where to go once the call succeeded, given its answer. */
  next: (answer: unknown) => Route;
}

/** A Create or Alter form: sends what is filled, shows the server's `{Group\Field}` messages beside their fields. */
function showFormPage(container: Element, context: PageContext, options: FormPageOptions): Page {
  const permission = context.permissions[options.operation];
  const known = new Set(options.fields.map(fieldLabel));
  let values = new Map<string, string>();
  let errors: FieldErrors | null = null;
  let sending = false;

  const draw = () =>
    render(
      container,
      h('nav.breadcrumb', null, link(options.back, '‹ Back')),
      h('h2', null, options.title),
      h(
        'p',
        null,
        options.intro,
        ' ',
        h('a', { attrs: { href: referenceHref(options.operation), target: '_blank', rel: 'noopener' } }, 'API reference: every field, its rule and default'),
      ),
      formView({
        operation: options.operation,
        id: 'replication-form',
        fields: options.fields,
        values,
        errors,
        submitLabel: sending ? 'Sending…' : options.submitLabel,
        disabledReason: permission.allowed ? null : permission.reason,
        onSubmit: (form) => void submit(form),
      }),
    );

  async function submit(form: HTMLFormElement): Promise<void> {
    if (sending) return;
    values = formValues(form);
    sending = true;
    draw();
    const result = await context.client.call(options.operation, formBody(options.fields, values, options.fixed));
    sending = false;
    if (result.ok) {
      context.navigate(options.next(result.value));
      return;
    }
    errors = splitFieldErrors(result.messages, known);
    draw();
    container.querySelector('.field.invalid input, .field.invalid select, .form-errors')?.scrollIntoView({ block: 'center' });
  }

  draw();
  return { dispose: () => undefined };
}

export function showCreatePage(container: Element, context: PageContext): Page {
  return showFormPage(container, context, {
    title: 'Create a replication',
    intro: 'Every field of CreateWarehouseReplication. The service checks that source, staging, warehouse and bucket answer before it stores anything.',
    operation: 'CreateWarehouseReplication',
    fields: CREATE_FIELDS,
    fixed: {},
    submitLabel: 'Create replication',
    back: { page: 'list' },
    next: (answer) => {
      const replicationId = (answer as { replicationId?: unknown } | null)?.replicationId;
      return typeof replicationId === 'string' ? { page: 'detail', replicationId } : { page: 'list' };
    },
  });
}

export function showAlterPage(container: Element, context: PageContext, replicationId: string): Page {
  return showFormPage(container, context, {
    title: 'Alter settings',
    intro: 'Fill only what should change; empty fields and "(unchanged)" are not sent. Secrets are never shown: type a new one to replace it.',
    operation: 'AlterWarehouseReplication',
    fields: ALTER_FIELDS,
    fixed: { replicationId },
    submitLabel: 'Alter replication',
    back: { page: 'detail', replicationId },
    next: () => ({ page: 'detail', replicationId }),
  });
}

import { render } from '../render/dom.js';
import { h, type VElement } from '../render/vnode.js';
import type { StoredSession } from '../api/session-store.js';

export const DEFAULT_REGION = 'us-east-1';

export type SignInHandler = (session: StoredSession) => Promise<string | null>;

export interface SignInOptions {
  onSignIn: SignInHandler;
  /** The last attempt's problem, shown above the form. */
  problem?: string | null;
  /** Why this page cannot sign at all (no secure context): shown instead of a working form, which is disabled. */
  cannotSign?: string[] | null;
  /** What the last attempt was made with, shown again so that only the secret is typed anew (never the secret itself). */
  accessKeyId?: string;
  region?: string;
}

/** After a failed attempt: its problem, and the key id and region it was made with. */
export type SignInRetry = (problem: string, attempt: Pick<StoredSession, 'accessKeyId' | 'region'>) => void;

function submitHandler(render: SignInRetry, onSignIn: SignInHandler): (event: Event) => void {
  return (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const field = (name: string) => {
      const value = data.get(name);
      return typeof value === 'string' ? value : '';
    };
    const session = { accessKeyId: field('accessKeyId').trim(), secretKey: field('secretKey'), region: field('region').trim() || DEFAULT_REGION };
    const button = form.querySelector('button');
    if (button) button.disabled = true;
    void onSignIn(session).then((failure) => {
      if (failure !== null) render(failure, { accessKeyId: session.accessKeyId, region: session.region });
    });
  };
}

/** The sign-in section; `rerender` shows it again with a problem after a failed attempt. Pure: tested without a DOM. */
export function signInView(options: SignInOptions, rerender: SignInRetry = () => undefined): VElement {
  const blocked = options.cannotSign ?? null;
  const disabled = blocked !== null;
  return h(
    'section.sign-in',
    null,
    h('h2', null, 'Sign in'),
    h('p', null, 'Every request this page makes is signed in your browser (SVC4-HMAC-SHA256) with this key. It is kept in this tab only (sessionStorage) and never sent: only signatures are.'),
    blocked !== null
      ? h(
          'div.notice.error#insecure-context',
          { attrs: { role: 'alert' } },
          blocked.map((paragraph) => h('p', null, paragraph)),
        )
      : null,
    options.problem ? h('p.notice.error', { attrs: { role: 'alert' } }, options.problem) : null,
    h(
      'form#sign-in',
      { attrs: { autocomplete: 'off', 'aria-disabled': disabled ? 'true' : null }, ...(!disabled && { on: { submit: submitHandler(rerender, options.onSignIn) } }) },
      h('label', { attrs: { for: 'access-key-id' } }, 'Access key id'),
      h('input#access-key-id', { attrs: { name: 'accessKeyId', value: options.accessKeyId ?? null, required: true, spellcheck: 'false', autocomplete: 'username', disabled } }),
      h('label', { attrs: { for: 'secret-key' } }, 'Secret access key'),
      h('input#secret-key', { attrs: { name: 'secretKey', type: 'password', required: true, autocomplete: 'current-password', disabled } }),
      h('label', { attrs: { for: 'region' } }, 'Region of the signature scope'),
      h('input#region', { attrs: { name: 'region', value: options.region ?? DEFAULT_REGION, spellcheck: 'false', disabled } }),
      h('button', { attrs: { type: 'submit', disabled } }, 'Sign in'),
    ),
  );
}

/** Asks for an access key id and secret; `onSignIn` checks them with a signed call and answers a problem or null. */
export function showSignIn(container: Element, options: SignInOptions): void {
  render(
    container,
    signInView(options, (problem, attempt) => showSignIn(container, { ...options, problem, ...attempt })),
  );
}

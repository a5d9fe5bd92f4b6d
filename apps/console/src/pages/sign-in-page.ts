import { render } from '../render/dom.js';
import { h } from '../render/vnode.js';
import type { StoredSession } from '../api/session-store.js';

export const DEFAULT_REGION = 'us-east-1';

/** Asks for an access key id and secret; `onSignIn` checks them with a signed call and answers a problem or null. */
export function showSignIn(container: Element, onSignIn: (session: StoredSession) => Promise<string | null>, problem: string | null = null): void {
  render(
    container,
    h(
      'section.sign-in',
      null,
      h('h2', null, 'Sign in'),
      h('p', null, 'Every request this page makes is signed in your browser (SVC4-HMAC-SHA256) with this key. It is kept in this tab only (sessionStorage) and never sent: only signatures are.'),
      problem ? h('p.notice.error', { attrs: { role: 'alert' } }, problem) : null,
      h(
        'form#sign-in',
        {
          attrs: { autocomplete: 'off' },
          on: {
            submit: (event) => {
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
                if (failure !== null) showSignIn(container, onSignIn, failure);
              });
            },
          },
        },
        h('label', { attrs: { for: 'access-key-id' } }, 'Access key id'),
        h('input#access-key-id', { attrs: { name: 'accessKeyId', required: true, spellcheck: 'false', autocomplete: 'username' } }),
        h('label', { attrs: { for: 'secret-key' } }, 'Secret access key'),
        h('input#secret-key', { attrs: { name: 'secretKey', type: 'password', required: true, autocomplete: 'current-password' } }),
        h('label', { attrs: { for: 'region' } }, 'Region of the signature scope'),
        h('input#region', { attrs: { name: 'region', value: DEFAULT_REGION, spellcheck: 'false' } }),
        h('button', { attrs: { type: 'submit' } }, 'Sign in'),
      ),
    ),
  );
}

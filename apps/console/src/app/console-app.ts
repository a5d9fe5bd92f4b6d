import { ApiClient } from '../api/api-client.js';
import { probePermissions, type Permissions } from '../api/permissions.js';
import { SessionStore, type StoredSession } from '../api/session-store.js';
import { showDetailPage } from '../pages/detail-page.js';
import { showAlterPage, showCreatePage } from '../pages/form-page.js';
import { showListPage } from '../pages/list-page.js';
import { showSignIn } from '../pages/sign-in-page.js';
import { render } from '../render/dom.js';
import type { SubtleDigests } from '@svc/signing/core';
import { insecureContextExplanation } from '../signing/signing-context.js';
import { h } from '../render/vnode.js';
import type { Page, PageContext } from './page-context.js';
import { parseRoute, routeHash, type Route } from './routes.js';

export interface ConsoleEnvironment {
  window: Window;
  /** WebCrypto, or null where the page may not sign (not a secure context): the sign-in page then explains. */
  subtle: SubtleDigests | null;
  fetch: typeof fetch;
}

/** A call that proves the key: the signature is checked before the permission, so a 403 other than "not allowed" means the key is wrong. */
const NOT_ALLOWED = /is not allowed to call/;

/** The console: sign-in, then the page the URL's hash names, with a header saying which key is in use. */
export class ConsoleApp {
  private readonly sessions: SessionStore;
  private readonly header: Element;
  private readonly main: Element;
  private page: Page | null = null;
  private context: PageContext | null = null;

  constructor(private readonly environment: ConsoleEnvironment) {
    const document = environment.window.document;
    this.sessions = new SessionStore(environment.window.sessionStorage);
    this.header = document.querySelector('#header') ?? document.body;
    this.main = document.querySelector('#main') ?? document.body;
    environment.window.addEventListener('hashchange', () => this.show());
  }

  async start(): Promise<void> {
    if (this.environment.subtle === null) {
      this.showSignIn(insecureContextExplanation(this.environment.window.location.origin));
      return;
    }
    const saved = this.sessions.load();
    if (saved === null || (await this.signIn(saved)) !== null) this.showSignIn();
  }

  private client(session: StoredSession, subtle: SubtleDigests): ApiClient {
    return new ApiClient({ origin: this.environment.window.location.origin, credentials: session, region: session.region, subtle, fetch: this.environment.fetch });
  }

  /** Checks the key with a signed call; on success keeps it for this tab and shows the page. Answers the problem otherwise. */
  private async signIn(session: StoredSession): Promise<string | null> {
    // start() never offers the form without WebCrypto; this keeps the type honest.
    if (this.environment.subtle === null) return 'this page cannot sign requests: it is not a secure context';
    const client = this.client(session, this.environment.subtle);
    const check = await client.call('ListWarehouseReplications', {});
    if (!check.ok && !(check.status === 403 && NOT_ALLOWED.test(check.messages.join(' ')))) return check.messages.join('; ');
    const permissions: Permissions = await probePermissions(client);
    this.sessions.save({ ...session, region: client.signingRegion });
    this.context = {
      client,
      permissions,
      navigate: (route: Route) => {
        if (this.environment.window.location.hash === routeHash(route)) this.show();
        else this.environment.window.location.hash = routeHash(route);
      },
      now: () => new Date(),
    };
    this.drawHeader(client, permissions);
    this.show();
    return null;
  }

  private showSignIn(cannotSign: string[] | null = null): void {
    this.page?.dispose();
    this.page = null;
    this.context = null;
    render(this.header, h('h1', null, 'svc console'));
    showSignIn(this.main, { onSignIn: (session) => this.signIn(session), cannotSign });
  }

  private drawHeader(client: ApiClient, permissions: Permissions): void {
    const readOnly = Object.values(permissions).every((permission) => !permission.allowed);
    render(
      this.header,
      h('h1', null, h('a', { attrs: { href: '#/' } }, 'svc console')),
      h(
        'div.who',
        null,
        h('span', null, 'Signed in as ', h('code#key-id', null, client.accessKeyId), ` (${client.signingRegion})`),
        readOnly ? h('span.badge.read-only', null, 'read-only key') : null,
        h('button#sign-out', { attrs: { type: 'button' }, on: { click: () => this.signOut() } }, 'Sign out'),
      ),
    );
  }

  private signOut(): void {
    this.sessions.clear();
    this.showSignIn();
  }

  private show(): void {
    const context = this.context;
    if (context === null) return;
    this.page?.dispose();
    const route = parseRoute(this.environment.window.location.hash);
    this.environment.window.scrollTo(0, 0);
    switch (route.page) {
      case 'list':
        this.page = showListPage(this.main, context);
        break;
      case 'create':
        this.page = showCreatePage(this.main, context);
        break;
      case 'detail':
        this.page = showDetailPage(this.main, context, route.replicationId, null);
        break;
      case 'table':
        this.page = showDetailPage(this.main, context, route.replicationId, route.tableName);
        break;
      case 'alter':
        this.page = showAlterPage(this.main, context, route.replicationId);
        break;
    }
  }
}

import { SVC4_SCHEME, type SubtleDigests } from '@svc/signing/core';
import { SIGNING_SERVICE, signRequest, type Credentials } from '../signing/signer.js';
import type { ConsoleOperation } from './operations.js';

/** What an API call came to: the parsed JSON answer (null for an empty 200), or the status and the server's messages. */
export type ApiResult<T> = { ok: true; value: T } | { ok: false; status: number; messages: string[] };

export interface ApiClientOptions {
  /** Scheme, host and port the page was loaded from (location.origin); calls go to `<origin>/api/<Operation>`. */
  origin: string;
  credentials: Credentials;
  region: string;
  subtle: SubtleDigests;
  fetch: typeof fetch;
  now?: () => Date;
  /** Random text signed into each call; default crypto.randomUUID. */
  nonce?: () => string;
}

const utf8 = new TextEncoder();
const WRONG_REGION = /^the Credential scope region must be (\S+)$/;

/**
 * Signed JSON calls to the gateway from the page, exactly as any other client makes them (SVC4-HMAC-SHA256).
 * The secret stays in this object; only signatures leave it.
 */
export class ApiClient {
  private region: string;

  constructor(private readonly options: ApiClientOptions) {
    this.region = options.region;
  }

  get accessKeyId(): string {
    return this.options.credentials.accessKeyId;
  }

  /** The scope region in use: the one given, or the one the gateway asked for (it names it when refusing another). */
  get signingRegion(): string {
    return this.region;
  }

  async call<T>(operation: ConsoleOperation, body: object): Promise<ApiResult<T>> {
    const first = await this.send<T>(operation, body);
    const askedRegion = !first.ok && first.status === 403 ? WRONG_REGION.exec(first.messages[0] ?? '')?.[1] : undefined;
    if (askedRegion === undefined || askedRegion === this.region) return first;
    this.region = askedRegion;
    return this.send<T>(operation, body);
  }

  private async send<T>(operation: ConsoleOperation, body: object): Promise<ApiResult<T>> {
    const url = new URL(`/api/${operation}`, this.options.origin);
    const bytes = utf8.encode(JSON.stringify(body));
    const headers = await signRequest(
      this.options.subtle,
      SVC4_SCHEME,
      // What the browser will send: Host is the page's, Content-Length the body's byte length.
      { method: 'POST', path: url.pathname, headers: { host: url.host, 'content-type': 'application/json', 'content-length': String(bytes.length) }, body: bytes },
      this.options.credentials,
      // A fresh nonce per call: the gateway accepts a signed call that changes state once, and a click repeated
      // within the second must not look like a replay.
      { region: this.region, service: SIGNING_SERVICE, now: (this.options.now ?? (() => new Date()))(), nonce: (this.options.nonce ?? (() => crypto.randomUUID()))() },
    );
    // Host and Content-Length are the browser's to send (forbidden request headers); they were signed above.
    delete headers['host'];
    delete headers['content-length'];
    let response: Response;
    try {
      response = await this.options.fetch(url, { method: 'POST', headers, body: bytes, credentials: 'omit', cache: 'no-store' });
    } catch (error) {
      return { ok: false, status: 0, messages: [`the service did not answer (${error instanceof Error ? error.message : String(error)})`] };
    }
    const text = await response.text();
    if (response.ok) return { ok: true, value: (text.trim() === '' ? null : JSON.parse(text)) as T };
    return { ok: false, status: response.status, messages: errorMessagesOf(text, response.status) };
  }
}

/** The `errors` of the API's JSON error body (seed §7); a body of another shape is summarised by its status. */
export function errorMessagesOf(body: string, status: number): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { errors?: unknown }).errors)) {
      return ((parsed as { errors: unknown[] }).errors).map(String);
    }
  } catch {
    // not JSON: fall through
  }
  return [`the service answered HTTP ${status}`];
}

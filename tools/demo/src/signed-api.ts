import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OperationName, OperationResponse } from '@svc/contracts';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import { SVC4_SCHEME, signRequest } from '@svc/signing';

export interface ApiCredentials {
  accessKeyId: string;
  secretKey: string;
}

/** The service answered with an error status; `messages` are the body's `errors`. */
export class ApiError extends Error {
  constructor(
    readonly operation: OperationName,
    readonly status: number,
    readonly messages: string[],
  ) {
    super(`${operation} answered ${status}: ${messages.join('; ') || '(no message)'}`);
    this.name = 'ApiError';
  }
}

/** No HTTP answer at all (refused, reset, timed out). */
export class UnreachableError extends Error {
  constructor(readonly endpoint: string, reason: string) {
    super(`the replication service is not answering at ${endpoint} (${reason})`);
    this.name = 'UnreachableError';
  }
}

const TIMEOUT_MS = 60_000;

/** Signed JSON calls to the gateway (SVC4-HMAC-SHA256). */
export class SignedApi {
  constructor(
    private readonly endpoint: string,
    private readonly region: string,
    private readonly credentials: ApiCredentials,
  ) {}

  /** GET /health; resolves with the status, rejects with UnreachableError when nothing answers. */
  async health(): Promise<number> {
    const url = new URL('/health', this.endpoint);
    const response = await this.send(url, 'GET', {}, Buffer.alloc(0));
    return response.status;
  }

  /** `body` is the JSON wire form (seed §2: lists as `[schema].[table]` text), not the canonical model. */
  async call<Op extends OperationName>(operation: Op, body: Record<string, unknown>): Promise<OperationResponse<Op>> {
    const url = new URL(this.endpoint);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/${operation}`;
    const bytes = Buffer.from(JSON.stringify(body), 'utf8');
    const headers = signRequest(
      SVC4_SCHEME,
      { method: 'POST', path: url.pathname, headers: { host: url.host, 'content-type': 'application/json', 'content-length': String(bytes.length) }, body: bytes },
      this.credentials,
      { region: this.region, service: SIGNING_SERVICE_NAME, nonce: randomUUID() },
    );
    const response = await this.send(url, 'POST', headers, bytes);
    if (response.status !== 200) throw new ApiError(operation, response.status, errorMessages(response.body));
    // An empty 200 is the answer of operations without response fields.
    return (response.body.trim() === '' ? null : JSON.parse(response.body)) as OperationResponse<Op>;
  }

  private send(url: URL, method: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const endpoint = `${url.protocol}//${url.host}`;
    return new Promise((resolve, reject) => {
      const outgoing = send(url, { method, headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        incoming.on('error', (error) => reject(new UnreachableError(endpoint, error.message)));
      });
      outgoing.setTimeout(TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      outgoing.on('error', (error: NodeJS.ErrnoException) => reject(new UnreachableError(endpoint, socketReason(error))));
      outgoing.end(body);
    });
  }
}

/** The `errors` of an error body (seed §7), or the raw text when it is not that shape. */
export function errorMessages(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { errors?: unknown }).errors)) {
      return (parsed as { errors: unknown[] }).errors.map(String);
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.trim() ? [body.trim().slice(0, 500)] : [];
}

function socketReason(error: NodeJS.ErrnoException): string {
  // A refused dual-stack connect arrives as an AggregateError with the code on its inner errors.
  const inner = (error as { errors?: NodeJS.ErrnoException[] }).errors?.[0];
  const code = error.code ?? inner?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'ECONNRESET') return 'connection reset';
  return error.message || code || 'unknown error';
}

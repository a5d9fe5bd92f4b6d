import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OperationName } from '@svc/contracts';
import { SIGNING_SERVICE_NAME } from '@svc/config';
import { SVC4_SCHEME, signRequest } from '@svc/signing';
import type { ClientCredentials } from '../credentials/client-settings';
import { describeNetworkError, displayEndpoint } from './network-error';

export const DEFAULT_TIMEOUT_MS = 120_000;

export interface SendOperationInput {
  endpoint: string;
  region: string;
  credentials: ClientCredentials;
  operation: OperationName;
  contentType: string;
  body: Buffer;
  /** Signing time; defaults to now. */
  now?: Date;
  /** Signed in X-Svc-Nonce; defaults to a random UUID, so that no two calls carry the same signature. */
  nonce?: string;
  timeoutMs?: number;
  /** Gives up on the call (it then resolves as unreachable): `svc describe --watch` on Ctrl-C. */
  signal?: AbortSignal;
  /** For https: the CA certificates (PEM) to verify the server's certificate with instead of the system's. */
  ca?: Buffer;
}

export interface HttpResponse {
  kind: 'response';
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Unreachable {
  kind: 'unreachable';
  /** e.g. `cannot reach http://127.0.0.1:8080: connection refused`; never holds credentials. */
  message: string;
}

export type SendOutcome = HttpResponse | Unreachable;

/** `<endpoint path>/api/<Operation>`, so an endpoint behind a path prefix works too. */
export function operationUrl(endpoint: string, operation: OperationName): URL {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/${operation}`;
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * Signs the call with SVC4-HMAC-SHA256 and POSTs it. Resolves with whatever status the server answers;
 * only a failure to get any answer becomes `unreachable`. Each call is signed anew with its own date and nonce:
 * the gateway accepts a signed call that changes state once, so a repeated call must never reuse a signature.
 */
export function sendOperation(input: SendOperationInput): Promise<SendOutcome> {
  const url = operationUrl(input.endpoint, input.operation);
  const headers = signRequest(
    SVC4_SCHEME,
    {
      method: 'POST',
      path: url.pathname,
      headers: { host: url.host, 'content-type': input.contentType, 'content-length': String(input.body.length) },
      body: input.body,
    },
    input.credentials,
    { region: input.region, service: SIGNING_SERVICE_NAME, nonce: input.nonce ?? randomUUID(), ...(input.now !== undefined && { now: input.now }) },
  );
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  return new Promise<SendOutcome>((resolve) => {
    const request = send(
      // URL keeps IPv6 literals bracketed; the socket wants them bare.
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        method: 'POST',
        path: url.pathname,
        headers,
        ...(input.signal !== undefined && { signal: input.signal }),
        ...(input.ca !== undefined && url.protocol === 'https:' && { ca: input.ca }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (error) => resolve({ kind: 'unreachable', message: describeNetworkError(url, error) }));
        response.on('end', () =>
          resolve({ kind: 'response', status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.setTimeout(timeoutMs, () => {
      request.destroy(new Error(`no answer from ${displayEndpoint(url)} within ${timeoutMs / 1000} s`));
    });
    request.on('error', (error) => resolve({ kind: 'unreachable', message: describeNetworkError(url, error) }));
    request.end(input.body);
  });
}

import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { SVC4_SCHEME, signRequest } from '@svc/signing';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface SignOptions {
  accessKeyId: string;
  secretKey: string;
  region?: string;
  service?: string;
  now?: Date;
  /** Signed in X-Svc-Nonce; a random one unless given, so that two calls never share a signature (the gateway refuses a replayed one). */
  nonce?: string;
}

/** How an https:// base URL is reached: the CA that signed the gateway's certificate (else the system's CAs). */
export interface TransportOptions {
  ca?: string | Buffer;
}

/** Sends raw bytes to the gateway with the given headers; a list value is sent as repeated header lines (what Node's request.headers would collapse). */
export function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body: Buffer | string,
  transport: TransportOptions = {},
): Promise<ApiResponse> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const respond = (incoming: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') }));
      incoming.on('error', reject);
    };
    const outgoing =
      url.protocol === 'https:'
        ? httpsRequest(url, { method, headers, ...(transport.ca !== undefined && { ca: transport.ca }) }, respond)
        : httpRequest(url, { method, headers }, respond);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Signs with SVC4-HMAC-SHA256 and returns the headers to send (for tests that tamper with them). */
export function signedHeaders(baseUrl: string, operation: string, contentType: string, body: string, options: SignOptions): Record<string, string> {
  const url = new URL(`/api/${operation}`, baseUrl);
  return signRequest(
    SVC4_SCHEME,
    {
      method: 'POST',
      path: url.pathname,
      headers: { host: url.host, 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
      body,
    },
    { accessKeyId: options.accessKeyId, secretKey: options.secretKey },
    { region: options.region ?? 'us-east-1', service: options.service ?? 'replication', nonce: options.nonce ?? randomUUID(), ...(options.now && { now: options.now }) },
  );
}

export async function callSigned(
  baseUrl: string,
  operation: string,
  format: 'xml' | 'json',
  body: string,
  options: SignOptions,
  transport: TransportOptions = {},
): Promise<ApiResponse> {
  const contentType = format === 'xml' ? 'application/xml' : 'application/json';
  return send(baseUrl, 'POST', `/api/${operation}`, signedHeaders(baseUrl, operation, contentType, body, options), body, transport);
}

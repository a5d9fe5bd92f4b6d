import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RestartablePort } from './restartable-server';

/**
 * A receiver of alert webhooks on 127.0.0.1 that records each delivery and checks its Svc-Signature. The check is its
 * own implementation of the scheme docs/ALERTS.md documents (Stripe's: https://docs.stripe.com/webhooks#verify-manually,
 * HMAC-SHA256 of "<t>.<raw body>"), not the sender library's, so a mistake shared by the library's signing and
 * verifying still fails a test.
 */
export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/alerts: the same across restarts. */
  url: string;
  deliveries: ReceivedWebhook[];
  /** The status later deliveries are answered with. */
  answerWith(status: number): void;
  stop(): Promise<void>;
  /** Listens again on the same port; the recorded deliveries are kept. */
  restart(): Promise<void>;
}

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether Svc-Signature signs `body` with the receiver's secret, with a timestamp within 5 minutes of now. */
  signatureValid: boolean;
  /** The status it was answered with. */
  status: number;
}

export interface WebhookReceiverOptions {
  secret: string;
  /** 204 by default. */
  status?: number;
  /** Sets Location on a 3xx answer. */
  location?: string;
}

const TOLERANCE_SECONDS = 300;

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const deliveries: ReceivedWebhook[] = [];
  let status = options.status ?? 204;
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const header = request.headers['svc-signature'];
      const signatureValid = typeof header === 'string' && signatureMatches(options.secret, header, body, Math.floor(Date.now() / 1000));
      deliveries.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, signatureValid, status });
      answer(response, status, options.location);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = new RestartablePort(server, () => {
    for (const socket of sockets) socket.destroy();
  });
  await port.start();
  return {
    url: `http://127.0.0.1:${port.boundPort}/alerts`,
    deliveries,
    answerWith: (next) => {
      status = next;
    },
    stop: () => port.stop(),
    restart: () => port.start(),
  };
}

function signatureMatches(secret: string, header: string, body: string, nowSeconds: number): boolean {
  const fields = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string | undefined]));
  const timestamp = fields.get('t');
  const signature = fields.get('v1');
  if (timestamp === undefined || signature === undefined || !/^\d+$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ServerResponse, status: number, location: string | undefined): void {
  response.writeHead(status, status >= 300 && status < 400 && location !== undefined ? { location } : {});
  response.end();
}

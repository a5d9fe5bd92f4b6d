import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SVC4_SCHEME, deriveSigningKey, verifyRequest } from '@svc/signing';
import { ApiError, SignedApi, UnreachableError, errorMessages } from './signed-api';

const KEY = { accessKeyId: 'AKIDEXAMPLE', secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

describe('SignedApi', () => {
  let server: Server;
  let endpoint = '';
  const received: Received[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '' };

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  beforeEach(() => {
    received.length = 0;
  });

  it('POSTs JSON to /api/<Operation> with an SVC4 signature the server-side verifier accepts', async () => {
    answer = { status: 200, body: '{"replications":[]}' };
    const api = new SignedApi(endpoint, 'us-east-1', KEY);
    await expect(api.call('ListWarehouseReplications', {})).resolves.toEqual({ replications: [] });
    const [request] = received;
    expect(request?.path).toBe('/api/ListWarehouseReplications');
    expect(request?.headers['content-type']).toBe('application/json');
    const verdict = await verifyRequest(
      SVC4_SCHEME,
      { method: 'POST', path: request?.path ?? '', headers: request?.headers ?? {}, body: request?.body ?? '' },
      async (_id, scope) => deriveSigningKey(SVC4_SCHEME, KEY.secretKey, scope),
      { region: 'us-east-1', service: 'replication', now: new Date() },
    );
    expect(verdict).toEqual({ ok: true, accessKeyId: KEY.accessKeyId });
  });

  it('turns an empty 200 into null and an error status into ApiError with the body messages', async () => {
    const api = new SignedApi(endpoint, 'us-east-1', KEY);
    answer = { status: 200, body: '' };
    await expect(api.call('DeleteWarehouseReplication', { replicationId: 'x' })).resolves.toBeNull();
    answer = { status: 400, body: '{"errors":["{Warehouse\\\\BucketName}: invalid value"],"requestId":1}' };
    const failure = await api.call('CreateWarehouseReplication', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 400, messages: ['{Warehouse\\BucketName}: invalid value'] });
  });

  it('reports a refused connection as UnreachableError naming the endpoint', async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((done) => closed.close(() => done()));
    const failure = await new SignedApi(`http://127.0.0.1:${port}`, 'us-east-1', KEY).health().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnreachableError);
    expect((failure as Error).message).toBe(`the replication service is not answering at http://127.0.0.1:${port} (connection refused)`);
  });
});

describe('errorMessages', () => {
  it('reads the errors array of a JSON error body, else the raw text', () => {
    expect(errorMessages('{"errors":["a","b"],"requestId":7}')).toEqual(['a', 'b']);
    expect(errorMessages('Bad Gateway')).toEqual(['Bad Gateway']);
    expect(errorMessages('')).toEqual([]);
  });
});

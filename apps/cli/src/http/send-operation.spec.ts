import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { operationUrl, sendOperation } from './send-operation';

describe('operationUrl', () => {
  it('appends /api/<Operation> to the endpoint, keeping a path prefix and dropping query and fragment', () => {
    expect(operationUrl('http://127.0.0.1:8080', 'ListWarehouseReplications').href).toBe('http://127.0.0.1:8080/api/ListWarehouseReplications');
    expect(operationUrl('https://gw.example/svc/', 'StartReplication').href).toBe('https://gw.example/svc/api/StartReplication');
    expect(operationUrl('http://[::1]:9000/x?y=1#z', 'AlterConfiguration').href).toBe('http://[::1]:9000/x/api/AlterConfiguration');
  });
});

describe('sendOperation', () => {
  let server: Server;
  let endpoint = '';
  const received: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push(request.headers);
      request.resume();
      request.on('end', () => response.end());
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((closed) => server.close(closed));
  });

  it('signs each call with a nonce of its own: the same call twice in one second carries two signatures', async () => {
    const now = new Date();
    const call = () =>
      sendOperation({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'SVCCLIKEY', secretKey: 'cli-secret' },
        operation: 'StartReplication',
        contentType: 'application/json',
        body: Buffer.from('{}'),
        now,
      });
    expect((await call()).kind).toBe('response');
    expect((await call()).kind).toBe('response');
    const [first, second] = received.slice(-2);
    expect(first?.['x-svc-date']).toBe(second?.['x-svc-date']);
    expect(first?.['x-svc-nonce']).toMatch(/^[0-9a-f-]{36}$/);
    expect(first?.['authorization']).toMatch(/SignedHeaders=[^,]*;x-svc-nonce,/);
    expect(first?.['authorization']).not.toBe(second?.['authorization']);
  });
});

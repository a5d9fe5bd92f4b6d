import { connect, type Socket } from 'node:net';
import { ADMIN_KEY, TEST_METRICS_TOKEN, ServiceProcess, TestStack, callSigned, send, signedHeaders, type ApiResponse } from '@svc/system-testing';
import { freePort, waitUntil } from '@svc/testing';
import { Client } from 'pg';
import { IAM_ROLE_FIXTURE, alterJsonUnquotedGuid, createJsonIamRole } from './fixtures';

const SOURCE_TABLES = `
  create schema sales;
  create table public.orders (id int primary key);
  create table sales.customers (id int primary key);
  create table public.audit_log (at timestamptz);
  create table public.products (id int primary key);`;

const ONE_MIB = 1024 * 1024;

interface ErrorBody {
  errors: string[];
  requestId: number;
}

function errorBodyOf(response: ApiResponse): ErrorBody {
  return JSON.parse(response.body) as ErrorBody;
}

/** Sends exactly the headers and body a signed call was first sent with: a replay by someone who saw it. */
function replay(baseUrl: string, operation: string, headers: Record<string, string>, body: string): Promise<ApiResponse> {
  return send(baseUrl, 'POST', `/api/${operation}`, headers, body);
}

/** A raw connection that collects what the gateway answers, to send a request in parts. */
class RawConnection {
  private received = '';

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => (this.received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
  }

  static async open(baseUrl: string): Promise<RawConnection> {
    const url = new URL(baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((connected) => socket.once('connect', connected));
    return new RawConnection(socket);
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((written, failed) => this.socket.write(data, (error) => (error ? failed(error) : written())));
  }

  /** Waits for the `count`-th complete answer (head and body by its Content-Length) and returns every answer so far. */
  async answers(count: number, deadlineMs: number): Promise<string[]> {
    let complete: string[] = [];
    await waitUntil(async () => (complete = completeAnswers(this.received)).length >= count, deadlineMs, `${count} answers from the gateway`);
    return complete;
  }

  close(): void {
    this.socket.destroy();
  }
}

function completeAnswers(text: string): string[] {
  const answers: string[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return answers;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(rest.slice(0, headEnd))?.[1] ?? 0);
    if (rest.length < headEnd + 4 + length) return answers;
    answers.push(rest.slice(0, headEnd + 4 + length));
    rest = rest.slice(headEnd + 4 + length);
  }
}

describe('the edge of the gateway: replays, Host, key enumeration, unsigned bodies, /metrics (real processes)', () => {
  const stack = new TestStack({ env: { SVC_ALLOWED_HOSTS: '127.0.0.1' } });
  let replicationId = '';

  beforeAll(async () => {
    await stack.start();
    await stack.prepareIamRole(IAM_ROLE_FIXTURE);
    const client = new Client({ connectionString: stack.source.url });
    await client.connect();
    await client.query(SOURCE_TABLES);
    await client.end();
  }, 120_000);

  afterAll(() => stack.stop(), 30_000);

  const replicationCount = async () => {
    const listed = await callSigned(stack.baseUrl, 'ListWarehouseReplications', 'json', '{}', ADMIN_KEY);
    return (JSON.parse(listed.body) as { replications: unknown[] }).replications.length;
  };

  describe('a signed call that changes state is accepted once', () => {
    it('refuses a replayed Create with 403 and creates nothing more', async () => {
      const body = createJsonIamRole(stack);
      const headers = signedHeaders(stack.baseUrl, 'CreateWarehouseReplication', 'application/json', body, ADMIN_KEY);
      const first = await replay(stack.baseUrl, 'CreateWarehouseReplication', headers, body);
      expect(first.status).toBe(200);
      replicationId = (JSON.parse(first.body) as { replicationId: string }).replicationId;
      const countAfterFirst = await replicationCount();

      const again = await replay(stack.baseUrl, 'CreateWarehouseReplication', headers, body);
      expect(again.status).toBe(403);
      expect(Object.keys(errorBodyOf(again)).sort()).toEqual(['errors', 'requestId']);
      expect(errorBodyOf(again).errors).toEqual([expect.stringMatching(/^this signed request was already received: a signed request is accepted once/)]);
      expect(await replicationCount()).toBe(countAfterFirst);
    }, 60_000);

    it('refuses a replayed Alter, while the same change signed again is accepted', async () => {
      const body = alterJsonUnquotedGuid(replicationId);
      const headers = signedHeaders(stack.baseUrl, 'AlterWarehouseReplication', 'application/json', body, ADMIN_KEY);
      expect((await replay(stack.baseUrl, 'AlterWarehouseReplication', headers, body)).status).toBe(200);
      expect((await replay(stack.baseUrl, 'AlterWarehouseReplication', headers, body)).status).toBe(403);
      expect((await callSigned(stack.baseUrl, 'AlterWarehouseReplication', 'json', body, ADMIN_KEY)).status).toBe(200);
    }, 60_000);

    it('refuses a call replayed to another gateway replica, through the replay records the replicas share (issue 40)', async () => {
      const port = await freePort();
      const second = new ServiceProcess('api-gateway', { ...stack.envOf('api-gateway'), PORT: String(port) });
      second.start();
      try {
        // Behind a load balancer the replay reaches the other replica; SVC_ALLOWED_HOSTS (no port) lets both answer the Host.
        const secondUrl = `http://127.0.0.1:${port}`;
        await waitUntil(async () => (await fetch(`${secondUrl}/health`).catch(() => null))?.status === 200, 30_000, 'the second gateway');
        const body = alterJsonUnquotedGuid(replicationId);
        for (const [firstUrl, thenUrl] of [
          [stack.baseUrl, secondUrl],
          [secondUrl, stack.baseUrl],
        ] as const) {
          const headers = signedHeaders(firstUrl, 'AlterWarehouseReplication', 'application/json', body, ADMIN_KEY);
          expect((await replay(firstUrl, 'AlterWarehouseReplication', headers, body)).status).toBe(200);
          const elsewhere = await replay(thenUrl, 'AlterWarehouseReplication', headers, body);
          expect(elsewhere.status).toBe(403);
          expect(errorBodyOf(elsewhere).errors).toEqual([expect.stringMatching(/^this signed request was already received: a signed request is accepted once/)]);
        }
      } finally {
        await second.stop();
      }
    }, 60_000);

    it('answers a replayed Describe and List as often as they are sent', async () => {
      const body = JSON.stringify({ replicationId });
      const headers = signedHeaders(stack.baseUrl, 'DescribeWarehouseReplication', 'application/json', body, ADMIN_KEY);
      for (let time = 0; time < 3; time += 1) expect((await replay(stack.baseUrl, 'DescribeWarehouseReplication', headers, body)).status).toBe(200);
      const listHeaders = signedHeaders(stack.baseUrl, 'ListWarehouseReplications', 'application/json', '{}', ADMIN_KEY);
      for (let time = 0; time < 3; time += 1) expect((await replay(stack.baseUrl, 'ListWarehouseReplications', listHeaders, '{}')).status).toBe(200);
    });

    it("answers the console's permission probe (a call that changes state with a body no operation takes) the same 400 each time", async () => {
      const probe = JSON.stringify({ consolePermissionProbe: true });
      const headers = signedHeaders(stack.baseUrl, 'DeleteWarehouseReplication', 'application/json', probe, ADMIN_KEY);
      for (let time = 0; time < 2; time += 1) expect((await replay(stack.baseUrl, 'DeleteWarehouseReplication', headers, probe)).status).toBe(400);
    });
  });

  it('refuses a call signed for a Host outside SVC_ALLOWED_HOSTS, naming the rule', async () => {
    const port = new URL(stack.baseUrl).port;
    const headers = signedHeaders(`http://gateway.attacker.example:${port}`, 'ListWarehouseReplications', 'application/json', '{}', ADMIN_KEY);
    const refused = await send(stack.baseUrl, 'POST', '/api/ListWarehouseReplications', headers, '{}');
    expect(refused.status).toBe(403);
    expect(errorBodyOf(refused).errors).toEqual([
      `the request is signed for Host 'gateway.attacker.example:${port}', which is not one of the names this gateway answers to (SVC_ALLOWED_HOSTS)`,
    ]);
    // The names it lists (here 127.0.0.1 on any port) are served.
    expect((await callSigned(stack.baseUrl, 'ListWarehouseReplications', 'json', '{}', ADMIN_KEY)).status).toBe(200);
  });

  it('answers an unknown access key and a wrong secret with the same body', async () => {
    const unknownKey = await callSigned(stack.baseUrl, 'ListWarehouseReplications', 'json', '{}', { accessKeyId: 'SVCNOSUCHKEY00000000', secretKey: ADMIN_KEY.secretKey });
    const wrongSecret = await callSigned(stack.baseUrl, 'ListWarehouseReplications', 'json', '{}', { ...ADMIN_KEY, secretKey: 'not-the-secret' });
    expect([unknownKey.status, wrongSecret.status]).toEqual([403, 403]);
    const withoutId = (response: ApiResponse) => response.body.replace(/"requestId":\d+/, '"requestId":0');
    expect(withoutId(unknownKey)).toBe(withoutId(wrongSecret));
    expect(errorBodyOf(unknownKey).errors[0]).toMatch(/^the request signature does not match, or the access key is not known/);
  });

  describe('a 1 MiB body without a well-formed signature is refused before it is read', () => {
    const date = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
    const wellFormedAuthorization = `SVC4-HMAC-SHA256 Credential=${ADMIN_KEY.accessKeyId}/${date().slice(0, 8)}/us-east-1/replication/svc4_request, SignedHeaders=content-length;content-type;host;x-svc-date, Signature=${'0'.repeat(64)}`;
    it.each([
      ['no Authorization', [] as string[], /no Authorization header/],
      ['an Authorization of another scheme', ['Authorization: Bearer abc'], /must start with SVC4-HMAC-SHA256/],
      ['an SVC4 Authorization without X-Svc-Date', [`Authorization: ${wellFormedAuthorization}`], /x-svc-date/],
    ])('%s: 403 while the body is still on its way, and the connection serves the next request', async (_case, extraHeaders, message) => {
      const host = new URL(stack.baseUrl).host;
      const connection = await RawConnection.open(stack.baseUrl);
      try {
        const head = [
          'POST /api/CreateWarehouseReplication HTTP/1.1',
          `Host: ${host}`,
          'Content-Type: application/json',
          `Content-Length: ${ONE_MIB}`,
          ...extraHeaders,
          '',
          '',
        ].join('\r\n');
        await connection.write(head);
        await connection.write(Buffer.alloc(1024, 0x20));
        // Only 1 KiB of the 1 MiB is sent: an answer now means the gateway did not wait for the body.
        const [refusal = ''] = await connection.answers(1, 5000);
        expect(refusal).toMatch(/^HTTP\/1\.1 403 /);
        expect((JSON.parse(refusal.slice(refusal.indexOf('\r\n\r\n') + 4)) as ErrorBody).errors.join(' ')).toMatch(message);

        await connection.write(Buffer.alloc(ONE_MIB - 1024, 0x20));
        await connection.write(`GET /health HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
        const [, health = ''] = await connection.answers(2, 5000);
        expect(health).toMatch(/^HTTP\/1\.1 200 /);
      } finally {
        connection.close();
      }
    }, 30_000);
  });

  describe('/metrics and /health', () => {
    it('serves /metrics to the bearer of METRICS_TOKEN only', async () => {
      const scrape = (authorization?: string) => fetch(`${stack.baseUrl}/metrics`, { ...(authorization !== undefined && { headers: { authorization } }) });
      const anonymous = await scrape();
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await anonymous.text()).not.toContain(replicationId);
      expect((await scrape('Bearer not-the-metrics-token-000')).status).toBe(401);
      const scraper = await scrape(`Bearer ${TEST_METRICS_TOKEN}`);
      expect(scraper.status).toBe(200);
      expect(await scraper.text()).toContain(`replication_id="${replicationId}"`);
    });

    it('sends a browser opening the service\'s address to the console, and answers API clients the API\'s 404 (issue 40)', async () => {
      const browser = await fetch(`${stack.baseUrl}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
      expect({ status: browser.status, location: browser.headers.get('location') }).toEqual({ status: 302, location: '/console/' });
      const client = await fetch(`${stack.baseUrl}/`, { headers: { accept: 'application/json' } });
      expect(client.status).toBe(404);
    });

    it('tells anonymous callers of /health only whether the gateway works', async () => {
      const health = await fetch(`${stack.baseUrl}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', registry: 'ok' });
    });

    it('has no /metrics without METRICS_TOKEN, and warns at start when it listens beyond loopback without SVC_ALLOWED_HOSTS', async () => {
      const port = await freePort();
      const gateway = new ServiceProcess('api-gateway', { ...stack.envOf('api-gateway'), PORT: String(port), HOST: '0.0.0.0', METRICS_TOKEN: '', SVC_ALLOWED_HOSTS: '' });
      gateway.start();
      try {
        const baseUrl = `http://127.0.0.1:${port}`;
        await waitUntil(async () => (await fetch(`${baseUrl}/health`)).status === 200, 30_000, 'the second gateway');
        const metrics = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } });
        expect(metrics.status).toBe(404);
        const unknownPath = await fetch(`${baseUrl}/no-such-path`);
        expect(((await metrics.json()) as ErrorBody).errors).toEqual(((await unknownPath.json()) as ErrorBody).errors);
        expect(gateway.logs()).toContain('SVC_ALLOWED_HOSTS is not set and the API listens on 0.0.0.0');
      } finally {
        await gateway.stop();
      }
    }, 60_000);
  });
});

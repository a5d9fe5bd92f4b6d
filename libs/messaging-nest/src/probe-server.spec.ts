import { ProbeServer, type ReadinessCheck } from './probe-server';

const passing = (name: string): ReadinessCheck => ({ name, check: () => Promise.resolve() });
/** Fails with a text that must never reach an anonymous caller (it names a host and a user). */
const failing = (name: string): ReadinessCheck => ({ name, check: () => Promise.reject(new Error('connect ECONNREFUSED db.internal:5432 as svc_registry')) });
const hanging = (name: string): ReadinessCheck => ({ name, check: () => new Promise<void>(() => undefined) });

describe('ProbeServer', () => {
  const servers: ProbeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  async function serve(checks: ReadinessCheck[]): Promise<{ server: ProbeServer; get: (path: string, method?: string) => Promise<{ status: number; body: unknown }> }> {
    const server = new ProbeServer('stager', { port: 0, host: '127.0.0.1' }, checks);
    servers.push(server);
    const port = await server.start();
    const get = async (path: string, method = 'GET') => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
      const body: unknown = await response.json();
      return { status: response.status, body };
    };
    return { server, get };
  }

  it('answers /health and /live while alive, whatever the checks say', async () => {
    const { get } = await serve([failing('nats')]);
    for (const path of ['/health', '/live']) {
      const answer = await get(path);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ service: 'stager', status: 'alive' });
    }
  });

  it('is ready when every check passes', async () => {
    const { get } = await serve([passing('nats'), passing('consumers')]);
    expect(await get('/ready')).toEqual({ status: 200, body: { service: 'stager', status: 'ready', checks: { nats: 'ok', consumers: 'ok' } } });
  });

  it('names the check that failed, and one that did not answer in time, without the error text', async () => {
    const { get } = await serve([passing('nats'), failing('controlDatabase'), hanging('streams')]);
    const startedAt = Date.now();
    const ready = await get('/ready');
    expect(Date.now() - startedAt).toBeLessThan(3500);
    expect(ready).toEqual({ status: 503, body: { service: 'stager', status: 'not ready', checks: { nats: 'ok', controlDatabase: 'failed', streams: 'timed out' } } });
    expect(JSON.stringify(ready.body)).not.toMatch(/db\.internal|svc_registry|ECONNREFUSED/);
  });

  it('is not ready once draining, even with every check passing', async () => {
    const { server, get } = await serve([passing('nats')]);
    server.drain();
    expect(await get('/ready')).toEqual({ status: 503, body: { service: 'stager', status: 'not ready', checks: { nats: 'shutting down' } } });
    expect((await get('/health')).status).toBe(200);
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    const { get } = await serve([passing('nats')]);
    expect((await get('/metrics')).status).toBe(404);
    expect((await get('/ready', 'POST')).status).toBe(405);
  });
});

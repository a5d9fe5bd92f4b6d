import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceName } from '@svc/contracts';
import { ServiceProcess, TestStack } from '@svc/system-testing';
import { freePort, startTestNats, waitUntil, type TestNatsServer } from '@svc/testing';

interface Probe {
  status: number;
  body: { status?: string; checks?: Record<string, string> };
}

async function probe(port: number, path: string): Promise<Probe | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: (await response.json()) as Probe['body'] };
  } catch {
    return null;
  }
}

const PROBED: ServiceName[] = ['job-registry', 'extractor', 'stager', 'loader'];

/**
 * Issue 40, item 1: every process has its own /health (alive) and /ready (what it needs is there) on PROBE_PORT; the
 * gateway has both beside its API. With NATS down a process stays alive but is not ready, and is ready again without a
 * restart once NATS is back. The registry reads its DATABASE_URL from a file (DATABASE_URL_FILE, item 4).
 */
describe('health probes of every process (PROBE_PORT)', () => {
  let nats: TestNatsServer;
  const stack = new TestStack({
    startNats: async () => {
      nats = await startTestNats();
      return nats;
    },
  });
  const processes = new Map<ServiceName, { child: ServiceProcess; port: number }>();

  beforeAll(async () => {
    await stack.start();
    for (const service of PROBED) {
      const port = await freePort();
      const env: Record<string, string> = { ...stack.envOf(service), PROBE_PORT: String(port), PROBE_HOST: '127.0.0.1' };
      if (service === 'job-registry') {
        // Its control database URL (a secret: it may hold a password) from a file, as a Kubernetes secret is mounted.
        const secretFile = join(mkdtempSync(join(tmpdir(), 'svc-probes-')), 'database-url');
        writeFileSync(secretFile, `${env['DATABASE_URL'] ?? ''}\n`, { mode: 0o600 });
        delete env['DATABASE_URL'];
        env['DATABASE_URL_FILE'] = secretFile;
      }
      const child = new ServiceProcess(service, env);
      child.start();
      processes.set(service, { child, port });
    }
  }, 120000);

  afterAll(async () => {
    await Promise.allSettled([...processes.values()].map(({ child }) => child.stop()));
    await stack.stop();
  }, 60000);

  const portOf = (service: ServiceName): number => processes.get(service)?.port ?? 0;
  const logsOf = (service: ServiceName): string => processes.get(service)?.child.logs() ?? '';
  const gatewayPort = (): number => Number(new URL(stack.baseUrl).port);

  it('says each process is ready, naming what it checked', async () => {
    const expected: Record<ServiceName, string[]> = {
      'job-registry': ['nats', 'controlDatabase', 'streams'],
      extractor: ['nats', 'consumers'],
      stager: ['nats', 'consumers'],
      loader: ['nats', 'consumers'],
      'api-gateway': ['nats', 'registry'],
    };
    for (const service of PROBED) {
      await waitUntil(async () => (await probe(portOf(service), '/ready'))?.status === 200, 30000, `${service} /ready`).catch((error: Error) => {
        throw new Error(`${error.message}\n${logsOf(service)}`);
      });
      const ready = await probe(portOf(service), '/ready');
      expect(ready).toEqual({ status: 200, body: { service, status: 'ready', checks: Object.fromEntries(expected[service].map((name) => [name, 'ok'])) } });
      for (const path of ['/health', '/live']) expect((await probe(portOf(service), path))?.body.status).toBe('alive');
    }
    expect(await probe(gatewayPort(), '/ready')).toEqual({ status: 200, body: { service: 'api-gateway', status: 'ready', checks: { nats: 'ok', registry: 'ok' } } });
    expect((await probe(gatewayPort(), '/live'))?.status).toBe(200);
  }, 90000);

  it('is alive but not ready while NATS is down, and ready again once it is back', async () => {
    await nats.down();
    try {
      for (const service of PROBED) {
        await waitUntil(async () => (await probe(portOf(service), '/ready'))?.status === 503, 15000, `${service} /ready to say 503 with NATS down`);
        const notReady = await probe(portOf(service), '/ready');
        expect(notReady?.body.status).toBe('not ready');
        expect(notReady?.body.checks?.['nats']).not.toBe('ok');
        expect((await probe(portOf(service), '/health'))?.status).toBe(200);
      }
      const gateway = await probe(gatewayPort(), '/ready');
      expect(gateway?.status).toBe(503);
      expect(gateway?.body.checks?.['nats']).not.toBe('ok');
      expect((await probe(gatewayPort(), '/live'))?.status).toBe(200);
    } finally {
      await nats.up();
    }
    for (const service of PROBED) await waitUntil(async () => (await probe(portOf(service), '/ready'))?.status === 200, 60000, `${service} /ready again after NATS came back`);
    await waitUntil(async () => (await probe(gatewayPort(), '/ready'))?.status === 200, 60000, 'the gateway /ready again');
  }, 180000);
});

import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Events, connect, type NatsConnection } from 'nats';
import { PipelineSubjects, Subjects, healthSubject } from '@svc/contracts';
import { connectNats, type BusRole } from '@svc/messaging';
import { NatsServerProcess, freePort, natsServerBinary, waitUntil } from '@svc/testing';
import { writeBusSecrets } from './bus-secrets';

const NODES = ['nats-1', 'nats-2', 'nats-3'];

interface NodeConfig {
  port: number;
  http: string;
  jetstream: { store_dir: string };
  tls: Record<string, string | number>;
  cluster: { listen: string; routes: string[]; tls: Record<string, string | number | boolean> };
}

/** `KEY=value` lines of an env file. */
function envFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/**
 * Issue 18: what `npm run secrets` writes for docker-compose.yml, run by real nats-server processes — the same three
 * node files, with only the container's paths and ports moved onto this machine (compose mounts the certificates at
 * /etc/nats/certs and the store at /data; here every node is on 127.0.0.1). The routes must form over mutual TLS,
 * and the attack of the issue must fail against it, while each role's own file lets it do its part.
 */
describe('the bus compose runs, as `npm run secrets` makes it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-compose-bus-'));
  const secrets = join(dir, 'secrets');
  const servers: NatsServerProcess[] = [];
  let urls: string[] = [];
  let monitorPorts: number[] = [];
  const opened: NatsConnection[] = [];

  const asRole = async (role: BusRole): Promise<NatsConnection> => {
    const env = envFile(join(secrets, 'env', `${role}.env`));
    const connection = await connectNats(urls, `compose-${role}`, {
      security: { auth: { kind: 'nkey', seed: env['NATS_NKEY_SEED'] ?? '' }, tls: { ca: readFileSync(join(secrets, 'certs', 'ca.pem'), 'utf8') } },
      role,
    });
    opened.push(connection);
    return connection;
  };

  beforeAll(async () => {
    const binary = natsServerBinary();
    if (binary === undefined) throw new Error('this test needs the nats-server binary (set NATS_SERVER_BIN)');
    writeBusSecrets({ dir: secrets, natsNodes: NODES, gatewayHosts: ['replication.example.com'] });
    const ports = await Promise.all(NODES.map(async () => ({ client: await freePort(), route: await freePort(), monitor: await freePort() })));
    urls = ports.map((port) => `tls://127.0.0.1:${port.client}`);
    monitorPorts = ports.map((port) => port.monitor);
    NODES.forEach((node, index) => {
      const port = ports[index] ?? { client: 0, route: 0, monitor: 0 };
      const text = readFileSync(join(secrets, 'nats', `${node}.json`), 'utf8').replaceAll('/etc/nats/certs', join(secrets, 'certs'));
      const config = JSON.parse(text) as NodeConfig;
      const store = join(dir, 'store', node);
      mkdirSync(store, { recursive: true });
      config.jetstream.store_dir = store;
      config.port = port.client;
      config.http = `127.0.0.1:${port.monitor}`;
      config.cluster.listen = `127.0.0.1:${port.route}`;
      config.cluster.routes = config.cluster.routes.map((route) => {
        const other = NODES.findIndex((name) => route.includes(`//${name}:`));
        return `nats://localhost:${ports[other]?.route ?? 0}`;
      });
      const file = join(dir, `${node}.json`);
      writeFileSync(file, JSON.stringify({ ...config, host: '127.0.0.1' }));
      servers.push(new NatsServerProcess(binary, ['-c', file], port.client, 'tls'));
    });
    await Promise.all(servers.map((server) => server.start()));
  }, 60000);

  afterAll(async () => {
    await Promise.allSettled(opened.map((connection) => connection.close()));
    await Promise.allSettled(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the secrets to their owners: a 0700 folder, seeds readable by the owner only, no seed in a server file', () => {
    expect(statSync(secrets).mode & 0o777).toBe(0o700);
    expect(statSync(join(secrets, 'certs', 'ca-key.pem')).mode & 0o777).toBe(0o600);
    for (const file of readdirSync(join(secrets, 'env'))) expect({ file, mode: statSync(join(secrets, 'env', file)).mode & 0o777 }).toEqual({ file, mode: 0o600 });
    const serverFiles = NODES.map((node) => readFileSync(join(secrets, 'nats', `${node}.json`), 'utf8')).join('\n');
    // Besides one file per role: MinIO's root account and the services' MinIO user (object-store-secrets.spec.ts).
    const roleFiles = readdirSync(join(secrets, 'env')).filter((file) => !['minio.env', 's3.env'].includes(file));
    expect(roleFiles).toHaveLength(readdirSync(join(secrets, 'env')).length - 2);
    for (const file of roleFiles) {
      const seed = envFile(join(secrets, 'env', file))['NATS_NKEY_SEED'] ?? '';
      expect(seed).toMatch(/^SU[A-Z2-7]{56}$/);
      expect(serverFiles).not.toContain(seed);
    }
    // The worker key is held by the registry and the workers, not by the gateway or an operator.
    const holders = readdirSync(join(secrets, 'env')).filter((file) => envFile(join(secrets, 'env', file))['SVC_WORKER_KEY'] !== undefined);
    expect(holders.sort()).toEqual(['extractor.env', 'job-registry.env', 'loader.env', 'stager.env']);
  });

  it('forms the cluster over mutual TLS on the routes', async () => {
    await waitUntil(
      async () => {
        const routes = await Promise.all(monitorPorts.map(async (port) => ((await (await fetch(`http://127.0.0.1:${port}/routez`)).json()) as { num_routes: number }).num_routes));
        return routes.every((count) => count === NODES.length - 1);
      },
      30000,
      'every node routed to the two others',
    );
    const varz = (await (await fetch(`http://127.0.0.1:${monitorPorts[0] ?? 0}/varz`)).json()) as { tls_required: boolean; cluster: { tls_required: boolean; tls_verify: boolean } };
    expect(varz.tls_required).toBe(true);
    expect(varz.cluster).toMatchObject({ tls_required: true, tls_verify: true });
  });

  it('refuses an anonymous client and a client that will not use TLS', async () => {
    const ca = readFileSync(join(secrets, 'certs', 'ca.pem'), 'utf8');
    await expect(connect({ servers: urls, tls: { ca }, reconnect: false })).rejects.toThrow(/authori[sz]ation/i);
    await expect(connect({ servers: urls.map((url) => url.replace('tls:', 'nats:')), tls: null, reconnect: false })).rejects.toThrow();
  });

  it('lets each role do its part and nothing more', async () => {
    const gateway = await asRole('api-gateway');
    const operator = await asRole('operator');
    const violations: string[] = [];
    for (const connection of [gateway, operator]) {
      void (async () => {
        for await (const status of connection.status()) {
          if (status.type === Events.Error && status.permissionContext) violations.push(`${status.permissionContext.operation} ${status.permissionContext.subject}`);
        }
      })();
    }
    // Allowed: an operator's health request reaches the bus (no service runs here, so nobody answers).
    await expect(operator.request(healthSubject('job-registry'), new Uint8Array(), { timeout: 1000 })).rejects.toMatchObject({ code: '503' });
    // Refused: the gateway asking for runtime configuration, forging a load, or reading the registry's inbox.
    await expect(gateway.request(Subjects.registryRuntimeConfig, new TextEncoder().encode(JSON.stringify({ pattern: Subjects.registryRuntimeConfig, data: { replicationId: randomUUID() } })), { timeout: 1000 })).rejects.toThrow();
    gateway.publish(PipelineSubjects.batchLoaded, new TextEncoder().encode('{}'));
    gateway.subscribe('_INBOX.job-registry.>');
    await gateway.flush().catch(() => undefined);
    await waitUntil(async () => violations.length >= 3, 5000, 'the server refusing the gateway three times');
    expect(violations).toEqual(
      expect.arrayContaining([`publish ${Subjects.registryRuntimeConfig}`, `publish ${PipelineSubjects.batchLoaded}`, 'subscription _INBOX.job-registry.>']),
    );
  });
});

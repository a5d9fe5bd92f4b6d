import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseDockerignore } from './dockerignore';
import { kubernetesSecretsDir, writeKubernetesSecrets } from './kubernetes-secrets';
import { composeNatsLayout } from './nats-layout';

const repoRoot = join(__dirname, '..', '..', '..');

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => (statSync(join(directory, name)).isDirectory() ? filesUnder(join(directory, name)) : [join(directory, name)]));
}

/** Issue 41: `npm run secrets -- --kubernetes <overlay>`, the bus of deploy/kubernetes's StatefulSet. */
describe('writeKubernetesSecrets', () => {
  let checkout = '';
  let dir = '';
  beforeAll(() => {
    checkout = mkdtempSync(join(tmpdir(), 'svc-kubernetes-secrets-'));
    dir = kubernetesSecretsDir(checkout, 'production');
    writeKubernetesSecrets(dir, ['replication.example.com']);
  });
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));

  it("configures each pod of the StatefulSet by its name, routing to the others' stable names, as the Helm chart does", () => {
    expect(readdirSync(join(dir, 'nats')).sort()).toEqual(['nats-0.json', 'nats-1.json', 'nats-2.json']);
    const config = JSON.parse(readFileSync(join(dir, 'nats', 'nats-1.json'), 'utf8')) as Record<string, unknown> & { cluster: Record<string, unknown> };
    expect(config).toMatchObject({ server_name: 'nats-1', http: '0.0.0.0:8222', pid_file: '/var/run/nats/nats.pid', lame_duck_duration: '30s', jetstream: { store_dir: '/data' } });
    expect(config.cluster).toMatchObject({ routes: ['nats://nats-0.nats-headless:6222', 'nats://nats-2.nats-headless:6222'], no_advertise: true, tls: { verify: true } });
  });

  it('makes the nodes\' certificate for every name a client or a route dials, and the gateway\'s for its Service and hosts', () => {
    const names = (file: string) => new X509Certificate(readFileSync(join(dir, 'certs', file))).subjectAltName ?? '';
    for (const name of ['nats', 'nats-0.nats-headless', 'nats-1.nats-headless', 'nats-2.nats-headless', 'localhost']) expect(names('nats.pem')).toContain(`DNS:${name}`);
    for (const name of ['api-gateway', 'replication.example.com']) expect(names('gateway.pem')).toContain(`DNS:${name}`);
  });

  it('writes each role its seed, the registry its keys, Prometheus its token, and no MinIO account', () => {
    const env = (file: string) => readFileSync(join(dir, 'env', file), 'utf8');
    expect(env('extractor.env')).toMatch(/^NATS_NKEY_SEED=SU[A-Z0-9]+$/m);
    expect(env('extractor.env')).toMatch(/^SVC_WORKER_KEY=[0-9a-f]{64}$/m);
    expect(env('api-gateway.env')).not.toMatch(/SVC_WORKER_KEY/);
    expect(env('registry.env')).toMatch(/^SVC_MASTER_KEY=[0-9a-f]{64}$/m);
    expect(env('registry.env')).toMatch(/^SVC_BOOTSTRAP_SECRET_KEY=\w{40}$/m);
    expect(env('metrics.env')).toMatch(/^METRICS_TOKEN=\w{40}$/m);
    expect(env('operator.env')).toMatch(/^NATS_URL=tls:\/\/localhost:4222$/m);
    expect(existsSync(join(dir, 'env', 'minio.env')) || existsSync(join(dir, 'env', 's3.env'))).toBe(false);
    for (const file of filesUnder(join(dir, 'env'))) expect([file, statSync(file).mode & 0o077]).toEqual([file, 0]);
  });

  it('keeps everything it writes, the nodes\' configurations too, out of the Docker build context', () => {
    const dockerignore = parseDockerignore(readFileSync(join(repoRoot, '.dockerignore'), 'utf8'));
    const included = filesUnder(dir).map((file) => relative(checkout, file)).filter((path) => !dockerignore.excludes(path));
    expect(included).toEqual([]);
  });
});

describe('composeNatsLayout', () => {
  it("is compose's as before: nodes by service name, monitoring on loopback, the operator on the published ports", () => {
    const layout = composeNatsLayout(['nats-1', 'nats-2', 'nats-3']);
    expect(layout.routesOf('nats-2')).toEqual(['nats://nats-1:6222', 'nats://nats-3:6222']);
    expect(layout.monitor).toEqual({ host: '127.0.0.1', port: 8222 });
    expect(layout.certificateHosts).toEqual(['nats-1', 'nats-2', 'nats-3', 'localhost', '127.0.0.1']);
    expect(layout.finish('{"a":1}')).toBe('{"a":1}');
  });
});

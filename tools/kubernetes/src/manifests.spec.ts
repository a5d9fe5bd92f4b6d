import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PipelineConsumers, SERVICE_NAMES, type ServiceName } from '@svc/contracts';
import { BUS_ROLES, BusNames } from '@svc/messaging';
import { KUBERNETES_NATS, kubernetesNatsHost } from '../../bus-secrets/src/nats-layout';
import { readmeSetting, readmeSettings } from '../../local-stack/src/readme-settings';
import { composeServices } from './compose';
import { allowed, type Endpoint, type NetworkPolicy } from './network-policies';
import { kubectlVersion, render, stagedTree, type KubernetesObject } from './rendering';
import { schemaProblems } from './schemas';
import { mountedFiles, named, settingsOf, workloads, type Container, type Workload } from './workloads';

const repoRoot = join(__dirname, '..', '..', '..');
const OVERLAYS = ['development', 'production'] as const;
const NAMESPACE = 'svc-replication';
const compose = composeServices(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8'));
const table = readmeSettings(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
const WORKERS = ['extractor', 'stager', 'loader'] as const;

/** What a deployment needs beyond the README's "required": the bus over TLS, probes, the registry's database and keys. */
const NEEDED: Record<ServiceName, string[]> = {
  'api-gateway': ['NATS_URL', 'NATS_CA_FILE', 'NATS_NKEY_SEED', 'PORT', 'TLS_CERT_FILE', 'TLS_KEY_FILE', 'SVC_ALLOWED_HOSTS', 'METRICS_TOKEN'],
  'job-registry': ['NATS_URL', 'NATS_CA_FILE', 'NATS_NKEY_SEED', 'PROBE_PORT', 'DATABASE_URL', 'SVC_BOOTSTRAP_ACCESS_KEY_ID', 'SVC_BOOTSTRAP_SECRET_KEY', 'NATS_STREAM_REPLICAS'],
  extractor: ['NATS_URL', 'NATS_CA_FILE', 'NATS_NKEY_SEED', 'PROBE_PORT'],
  stager: ['NATS_URL', 'NATS_CA_FILE', 'NATS_NKEY_SEED', 'PROBE_PORT'],
  loader: ['NATS_URL', 'NATS_CA_FILE', 'NATS_NKEY_SEED', 'PROBE_PORT'],
};

/**
 * Where the manifests differ from docker-compose.yml because the platform does (deploy/kubernetes/README.md, "Compose
 * and the manifests"): settings compose gives that a cluster leaves unset, and values that name the platform's things.
 */
const UNSET_HERE: Record<string, (overlay: string, service: ServiceName) => boolean> = {
  // compose's MinIO; production's S3 is AWS. Development names its store, but not to the extractor: it reaches no
  // bucket (tools/bus-secrets/src/service-s3-identity.spec.ts), and compose gives it S3_ENDPOINT only through its anchor.
  S3_ENDPOINT: (overlay, service) => overlay === 'production' || service === 'extractor',
  // compose passes them empty (unset) by default: a rotation or a VPC endpoint adds them.
  STS_ENDPOINT: () => true,
  SVC_MASTER_KEY_PREVIOUS: () => true,
};
const PLATFORM_VALUES = new Set(['NATS_URL', 'S3_ENDPOINT', 'SVC_ALLOWED_HOSTS']);
/** compose's env_file settings: the role's seed and worker key (the same writer), and the MinIO user (s3.env). */
const FROM_ENV_FILES = new Set(['NATS_NKEY_SEED', 'SVC_WORKER_KEY', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']);

/** The setting a variable gives: itself (NATS_CA_FILE), or the one it gives as a file (DATABASE_URL_FILE: DATABASE_URL). */
const base = (name: string) => (name.endsWith('_FILE') && !table.some((row) => row.names.includes(name)) ? name.slice(0, -'_FILE'.length) : name);
const serviceOf = (workload: Workload) => workload.metadata.name as ServiceName;
const containerOf = (workload: Workload): Container => {
  const container = workload.spec.template.spec.containers.find((candidate) => candidate.name === workload.metadata.name);
  if (container === undefined) throw new Error(`${workload.metadata.name} has no container of its name`);
  return container;
};
/** The image's repository without registry and tag: what kustomize's `images` may move, never change. */
const repository = (image: string) => (image.split('/').pop() ?? '').split(':')[0];

let staged = '';
const renders = new Map<string, KubernetesObject[]>();
const objectsOf = (name: string): KubernetesObject[] => renders.get(name) ?? [];

beforeAll(() => {
  kubectlVersion();
  staged = stagedTree(join(repoRoot, 'deploy', 'kubernetes'), OVERLAYS);
  renders.set('base', render(join(staged, 'base')));
  for (const overlay of OVERLAYS) renders.set(overlay, render(join(staged, 'overlays', overlay)));
}, 180_000);
afterAll(() => staged !== '' && rmSync(dirname(staged), { recursive: true, force: true }));

describe('deploy/kubernetes, rendered by kubectl kustomize', () => {
  it.each(['base', ...OVERLAYS])('%s: every object is valid by its kind\'s schema, and of a kind with one', (name) => {
    expect(objectsOf(name).length).toBeGreaterThan(20);
    expect(schemaProblems(join(repoRoot, 'node_modules'), objectsOf(name))).toEqual([]);
  }, 60_000);

  it('base: runs the image compose builds, one per service as compose runs them, with compose\'s commands and counts', () => {
    const objects = objectsOf('base');
    const services = workloads(objects).filter((workload) => workload.kind === 'Deployment');
    expect(services.map(serviceOf).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const workload of services) {
      const service = compose.get(serviceOf(workload));
      expect({ service: serviceOf(workload), image: containerOf(workload).image, command: containerOf(workload).command, replicas: workload.spec.replicas }).toEqual({
        service: serviceOf(workload),
        image: service?.image,
        command: service?.command,
        replicas: service?.replicas,
      });
    }
  });
});

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  const objects = () => objectsOf(overlay);
  const deployments = () => workloads(objects()).filter((workload) => workload.kind === 'Deployment');

  it('runs every service of the bus, in one namespace, all from one image of compose\'s repository with compose\'s commands', () => {
    expect(deployments().map(serviceOf).sort()).toEqual(BUS_ROLES.filter((role) => role !== 'operator').sort());
    expect(new Set(objects().filter((object) => object.kind !== 'Namespace').map((object) => object.metadata.namespace))).toEqual(new Set([NAMESPACE]));
    const images = new Set(deployments().map((workload) => containerOf(workload).image));
    expect(images.size).toBe(1);
    expect([...images].map(repository)).toEqual([repository(compose.get('api-gateway')?.image ?? '')]);
    for (const workload of deployments()) expect([serviceOf(workload), containerOf(workload).command]).toEqual([serviceOf(workload), compose.get(serviceOf(workload))?.command]);
  });

  it("gives each service only settings the README's table documents for it, and every one it needs", () => {
    for (const workload of deployments()) {
      const service = serviceOf(workload);
      const names = [...settingsOf(objects(), containerOf(workload)).keys()];
      const undocumented = names.filter((name) => !readmeSetting(table, name)?.usedBy.includes(service));
      const required = table.filter((row) => row.required && row.usedBy.includes(service)).flatMap((row) => row.names.slice(0, 1));
      const missing = [...required, ...NEEDED[service]].filter((name) => !names.map(base).includes(name));
      expect({ service, undocumented, missing }).toEqual({ service, undocumented: [], missing: [] });
    }
  });

  it('mounts every file a setting names, with content: the generated secrets reach the containers under those names', () => {
    for (const workload of workloads(objects()).filter((candidate) => candidate.kind === 'Deployment')) {
      const container = containerOf(workload);
      const files = mountedFiles(objects(), workload.spec.template.spec, container);
      const paths = [...settingsOf(objects(), container).entries()].filter(([name, value]) => name.endsWith('_FILE') || value.startsWith('/run/')).map(([, value]) => value);
      expect(paths.length).toBeGreaterThan(1);
      expect({ service: serviceOf(workload), unmounted: paths.filter((path) => (files.get(path) ?? '').trim() === '') }).toEqual({ service: serviceOf(workload), unmounted: [] });
    }
  });

  it('mirrors docker-compose.yml: the same settings with the same values, but where the platform differs', () => {
    for (const workload of deployments()) {
      const service = serviceOf(workload);
      const here = new Map([...settingsOf(objects(), containerOf(workload)).entries()].map(([name, value]) => [base(name), base(name) !== name ? undefined : value]));
      const there = [...(compose.get(service)?.environment ?? new Map<string, string | undefined>()).entries()].filter(([name]) => readmeSetting(table, name)?.usedBy.includes(service));
      const missing = there.filter(([name]) => !here.has(name) && !(UNSET_HERE[name]?.(overlay, service) ?? false)).map(([name]) => name);
      const added = [...here.keys()].filter((name) => !there.some(([other]) => other === name) && !FROM_ENV_FILES.has(name) && !(name === 'S3_ENDPOINT' && overlay === 'development'));
      const differing = there.filter(([name, value]) => value !== undefined && here.get(name) !== undefined && here.get(name) !== value && !PLATFORM_VALUES.has(name)).map(([name]) => name);
      expect({ service, missing, added, differing }).toEqual({ service, missing: [], added: [], differing: [] });
    }
  });

  it("stops each service within compose's stop_grace_period, and starts development's autoscalers at compose's counts", () => {
    for (const workload of deployments()) {
      expect([serviceOf(workload), workload.spec.template.spec.terminationGracePeriodSeconds]).toEqual([serviceOf(workload), compose.get(serviceOf(workload))?.stopGraceSeconds]);
    }
    if (overlay !== 'development') return;
    const minimum = (name: string) => named<KubernetesObject & { spec: { minReplicaCount?: number; minReplicas?: number } }>(objects(), name === 'api-gateway' ? 'HorizontalPodAutoscaler' : 'ScaledObject', name)?.spec;
    for (const name of [...WORKERS, 'api-gateway'] as const) expect([name, minimum(name)?.minReplicaCount ?? minimum(name)?.minReplicas]).toEqual([name, compose.get(name)?.replicas]);
  });

  it('runs every container as non-root, read-only, unprivileged, with requests, limits, probes, a budget and a spread', () => {
    const budgets = objects().filter((object) => object.kind === 'PodDisruptionBudget') as (KubernetesObject & { spec: { selector: { matchLabels: Record<string, string> } } })[];
    for (const workload of workloads(objects())) {
      const pod = workload.spec.template.spec;
      expect([workload.metadata.name, pod.securityContext?.runAsNonRoot, pod.securityContext?.seccompProfile?.type]).toEqual([workload.metadata.name, true, 'RuntimeDefault']);
      expect(budgets.filter((budget) => Object.entries(budget.spec.selector.matchLabels).every(([key, value]) => workload.spec.template.metadata.labels[key] === value))).toHaveLength(1);
      expect(pod.topologySpreadConstraints?.map((constraint) => constraint.topologyKey).sort()).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
      for (const container of pod.containers) {
        const security = container.securityContext;
        expect([container.name, security?.allowPrivilegeEscalation, security?.readOnlyRootFilesystem, security?.capabilities?.drop]).toEqual([container.name, false, true, ['ALL']]);
        expect([container.name, Object.keys(container.resources?.requests ?? {}).sort(), Object.keys(container.resources?.limits ?? {}).sort()]).toEqual([container.name, ['cpu', 'memory'], ['cpu', 'memory']]);
      }
    }
    for (const workload of deployments()) {
      const container = containerOf(workload);
      const settings = settingsOf(objects(), container);
      // The registry and the workers answer on PROBE_PORT, the gateway on its API port over HTTPS.
      const port = Number(settings.get(serviceOf(workload) === 'api-gateway' ? 'PORT' : 'PROBE_PORT'));
      const portOf = (probePort: number | string | undefined) => container.ports?.find((entry) => entry.name === probePort || entry.containerPort === probePort)?.containerPort;
      const scheme = serviceOf(workload) === 'api-gateway' ? 'HTTPS' : undefined;
      for (const [probe, path] of [[container.readinessProbe, '/ready'], [container.livenessProbe, '/live']] as const) {
        expect([serviceOf(workload), probe?.httpGet?.path, portOf(probe?.httpGet?.port), probe?.httpGet?.scheme]).toEqual([serviceOf(workload), path, port, scheme]);
      }
    }
  });

  it("scales each stage on its own durable consumer of the work stream, through the NATS StatefulSet's headless Service", () => {
    const nats = named<Workload>(objects(), 'StatefulSet', KUBERNETES_NATS.statefulSet);
    const endpoint = `${nats?.spec.serviceName}.${NAMESPACE}.svc.cluster.local:8222`;
    const consumers: Record<(typeof WORKERS)[number], string[]> = {
      extractor: [PipelineConsumers.extractor.durableName, PipelineConsumers.validator.durableName],
      stager: [PipelineConsumers.stager.durableName],
      loader: [PipelineConsumers.loader.durableName],
    };
    type Trigger = { type: string; metadata: Record<string, string> };
    for (const worker of WORKERS) {
      const scaled = named<KubernetesObject & { spec: { scaleTargetRef: { name: string }; cooldownPeriod?: number; minReplicaCount: number; maxReplicaCount: number; triggers: Trigger[] } }>(objects(), 'ScaledObject', worker);
      expect(scaled?.spec.scaleTargetRef.name).toBe(worker);
      expect(named(objects(), 'Deployment', worker)).toBeDefined();
      expect(scaled?.spec.cooldownPeriod).toBeGreaterThan(0);
      expect(scaled?.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(scaled?.spec.maxReplicaCount).toBeGreaterThan(scaled?.spec.minReplicaCount ?? Infinity);
      expect(scaled?.spec.triggers.map((trigger) => [trigger.type, trigger.metadata['natsServerMonitoringEndpoint'], trigger.metadata['account'], trigger.metadata['stream'], trigger.metadata['consumer']])).toEqual(
        consumers[worker].map((consumer) => ['nats-jetstream', endpoint, '$G', new BusNames('').workStream, consumer]),
      );
    }
    const gateway = named<KubernetesObject & { spec: { scaleTargetRef: { name: string }; metrics: { resource?: { name: string } }[] } }>(objects(), 'HorizontalPodAutoscaler', 'api-gateway');
    expect([gateway?.spec.scaleTargetRef.name, gateway?.spec.metrics.map((metric) => metric.resource?.name)]).toEqual(['api-gateway', ['cpu']]);
  });

  it('runs NATS on the configuration npm run secrets made for these pods: names, routes, TLS files and store mounted', () => {
    const nats = named<Workload>(objects(), 'StatefulSet', KUBERNETES_NATS.statefulSet);
    if (nats === undefined) throw new Error('no NATS StatefulSet');
    expect([nats.spec.replicas, nats.spec.serviceName]).toEqual([KUBERNETES_NATS.replicas, KUBERNETES_NATS.headlessService]);
    expect(named<KubernetesObject & { spec: { clusterIP?: string } }>(objects(), 'Service', KUBERNETES_NATS.headlessService)?.spec.clusterIP).toBe('None');
    const server = nats.spec.template.spec.containers.find((container) => container.name === 'nats');
    if (server === undefined) throw new Error('no nats container');
    const files = mountedFiles(objects(), nats.spec.template.spec, server);
    const pods = Array.from({ length: KUBERNETES_NATS.replicas }, (_value, index) => `${KUBERNETES_NATS.statefulSet}-${index}`);
    for (const pod of pods) {
      const text = files.get(`/etc/nats/config/${pod}.json`);
      if (text === undefined) throw new Error(`no configuration for ${pod}`);
      const config = JSON.parse(text) as { server_name: string; port: number; http: string; jetstream: { store_dir: string }; pid_file: string; tls: { cert_file: string; key_file: string; ca_file: string }; cluster: { listen: string; routes: string[] } };
      expect(config.server_name).toBe(pod);
      expect(config.cluster.routes.sort()).toEqual(pods.filter((other) => other !== pod).map((other) => `nats://${kubernetesNatsHost(other)}:6222`));
      for (const file of [config.tls.cert_file, config.tls.key_file, config.tls.ca_file]) expect([file, (files.get(file) ?? '').startsWith('-----BEGIN')]).toEqual([file, true]);
      const mounts = (server.volumeMounts ?? []).map((mount) => mount.mountPath);
      expect(mounts).toEqual(expect.arrayContaining([config.jetstream.store_dir, dirname(config.pid_file)]));
      const ports = (server.ports ?? []).map((port) => port.containerPort);
      expect(ports).toEqual(expect.arrayContaining([config.port, Number(config.http.split(':')[1]), Number(config.cluster.listen.split(':')[1])]));
    }
    // The services dial every node by the names the certificate holds.
    const url = settingsOf(objects(), containerOf(deployments()[0])).get('NATS_URL') ?? '';
    expect(url.split(',')).toEqual(pods.map((pod) => `tls://${kubernetesNatsHost(pod)}:4222`));
  });

  describe('network policies', () => {
    const policies = () => objects().filter((object): object is NetworkPolicy => object.kind === 'NetworkPolicy');
    const pod = (name: string): Endpoint => ({ namespace: NAMESPACE, labels: named<Workload>(objects(), name === 'nats' ? 'StatefulSet' : 'Deployment', name)?.spec.template.metadata.labels ?? {} });
    const stranger: Endpoint = { namespace: NAMESPACE, labels: { 'app.kubernetes.io/name': 'stranger' } };
    const elsewhere = (namespace: string): Endpoint => ({ namespace, labels: { app: 'any' } });
    const services = () => BUS_ROLES.filter((role) => role !== 'operator');
    const controlDatabase = () => {
      const cidr = (named<NetworkPolicy>(objects(), 'NetworkPolicy', 'control-database-egress')?.spec.egress ?? [])[0]?.to?.[0]?.ipBlock?.cidr ?? '';
      return { ip: cidr.split('/')[0] ?? '' };
    };

    it('deny by default, both ways, every pod', () => {
      expect(policies().some((policy) => Object.keys(policy.spec.podSelector).length === 0 && (policy.spec.policyTypes ?? []).length === 2 && !policy.spec.ingress && !policy.spec.egress)).toBe(true);
    });

    it('let every bus role reach NATS on 4222, and nothing else: neither another pod nor another namespace', () => {
      for (const role of services()) expect([role, allowed(policies(), pod(role), pod('nats'), 4222)]).toEqual([role, true]);
      expect(allowed(policies(), stranger, pod('nats'), 4222)).toBe(false);
      expect(allowed(policies(), elsewhere('default'), pod('nats'), 4222)).toBe(false);
      expect(allowed(policies(), { ip: '203.0.113.7' }, pod('nats'), 4222)).toBe(false);
    });

    it('let the NATS nodes route to each other (6222), KEDA read their monitoring and Prometheus their exporter, no one else', () => {
      expect(allowed(policies(), pod('nats'), pod('nats'), 6222)).toBe(true);
      expect(allowed(policies(), elsewhere('keda'), pod('nats'), 8222)).toBe(true);
      expect(allowed(policies(), elsewhere('monitoring'), pod('nats'), 7777)).toBe(true);
      for (const role of services()) {
        expect([role, allowed(policies(), pod(role), pod('nats'), 6222), allowed(policies(), pod(role), pod('nats'), 8222)]).toEqual([role, false, false]);
      }
      expect(allowed(policies(), elsewhere('default'), pod('nats'), 8222)).toBe(false);
    });

    it('let the ingress controller and Prometheus reach the gateway on its port, and nothing reach the other services', () => {
      expect(allowed(policies(), elsewhere('ingress-nginx'), pod('api-gateway'), 8443)).toBe(true);
      expect(allowed(policies(), elsewhere('monitoring'), pod('api-gateway'), 8443)).toBe(true);
      expect(allowed(policies(), elsewhere('default'), pod('api-gateway'), 8443)).toBe(false);
      for (const role of ['job-registry', ...WORKERS]) expect([role, allowed(policies(), elsewhere('ingress-nginx'), pod(role), 9090), allowed(policies(), stranger, pod(role), 9090)]).toEqual([role, false, false]);
    });

    it('let the registry alone reach the control database and SMTP relays; the registry and workers the customers\' databases; the S3 users S3', () => {
      const customer = { ip: '203.0.113.7' };
      const cloud = { ip: '198.51.100.20' };
      // compose's S3 identity (s3.env) goes to exactly the services that reach S3 here.
      const s3Users = [...compose.entries()].filter(([name, service]) => SERVICE_NAMES.includes(name as ServiceName) && service.envFiles.some((file) => file.endsWith('/s3.env'))).map(([name]) => name);
      for (const role of services()) {
        expect({
          role,
          control: allowed(policies(), pod(role), controlDatabase(), 5432),
          customer: [5432, 1433, 5439].map((port) => allowed(policies(), pod(role), customer, port)),
          s3: allowed(policies(), pod(role), cloud, 443),
          // Alert e-mail (SMTP submission, implicit TLS, relay): the registry delivers alerts, nobody else.
          smtp: [587, 465, 25].map((port) => allowed(policies(), pod(role), cloud, port)),
          dns: allowed(policies(), pod(role), { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }, 53, 'UDP'),
          elsewhere: allowed(policies(), pod(role), customer, 22),
        }).toEqual({
          role,
          control: role === 'job-registry',
          customer: Array(3).fill(role !== 'api-gateway'),
          s3: s3Users.includes(role),
          smtp: Array(3).fill(role === 'job-registry'),
          dns: true,
          elsewhere: false,
        });
      }
    });
  });

  it('watches and alerts on metrics the code exports, and ships the dashboard to Grafana', () => {
    const defined = new Set(sourceFiles(join(repoRoot, 'apps')).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/'(svc_[a-z_]+)'/g)].map((match) => match[1])));
    const rules = named<KubernetesObject & { spec: { groups: { rules: { expr: string }[] }[] } }>(objects(), 'PrometheusRule', 'svc-replication');
    const dashboard = named<KubernetesObject & { data: Record<string, string> }>(objects(), 'ConfigMap', 'grafana-dashboard-svc-replication');
    expect(dashboard?.metadata.labels?.['grafana_dashboard']).toBe('1');
    const panels = (JSON.parse(dashboard?.data['svc-replication.json'] ?? '{}') as { panels?: { targets: { expr: string }[] }[] }).panels ?? [];
    const expressions = [...(rules?.spec.groups ?? []).flatMap((group) => group.rules.map((rule) => rule.expr)), ...panels.flatMap((panel) => panel.targets.map((target) => target.expr))];
    const used = new Set(expressions.flatMap((expression) => [...expression.matchAll(/\bsvc_[a-z_]+/g)].map((match) => match[0])));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !defined.has(name))).toEqual([]);
    expect(expressions.filter((expression) => /nats_consumer_/.test(expression)).every((expression) => expression.includes(`stream_name="${new BusNames('').workStream}"`))).toBe(true);
  });
});

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.includes('spec.ts') ? [path] : [];
  });
}

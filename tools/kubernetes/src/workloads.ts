import type { KubernetesObject } from './rendering';

export interface EnvVar {
  name: string;
  value?: string;
}
export interface VolumeMount {
  name: string;
  mountPath: string;
}
export interface Probe {
  httpGet?: { path?: string; port: number | string; scheme?: string };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: VolumeMount[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
}
interface KeySource {
  name: string;
  items?: { key: string; path: string }[];
}
export interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  configMap?: KeySource;
  projected?: { sources: { secret?: KeySource; configMap?: KeySource }[] };
}
export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: { topologyKey: string; labelSelector?: { matchLabels?: Record<string, string> } }[];
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
}
export interface Workload extends KubernetesObject {
  spec: { replicas?: number; serviceName?: string; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}

export const named = <T extends KubernetesObject>(objects: readonly KubernetesObject[], kind: string, name: string): T | undefined =>
  objects.find((object) => object.kind === kind && object.metadata.name === name) as T | undefined;

export const workloads = (objects: readonly KubernetesObject[]): Workload[] =>
  objects.filter((object): object is Workload => object.kind === 'Deployment' || object.kind === 'StatefulSet');

/** The keys of a rendered ConfigMap's or Secret's data. */
function keysOf(objects: readonly KubernetesObject[], kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> | undefined {
  const object = named<KubernetesObject & { data?: Record<string, string> }>(objects, kind, name);
  if (object === undefined) return undefined;
  const data = object.data ?? {};
  return kind === 'Secret' ? Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')])) : data;
}

/**
 * Every setting a container gets and its value: `env` and the ConfigMaps and Secrets of `envFrom` (a setting whose
 * source is missing from the render is missing here too).
 */
export function settingsOf(objects: readonly KubernetesObject[], container: Container): Map<string, string> {
  const settings = new Map<string, string>();
  for (const source of container.envFrom ?? []) {
    const data = source.configMapRef ? keysOf(objects, 'ConfigMap', source.configMapRef.name) : source.secretRef ? keysOf(objects, 'Secret', source.secretRef.name) : undefined;
    for (const [key, value] of Object.entries(data ?? {})) settings.set(key, value);
  }
  for (const variable of container.env ?? []) settings.set(variable.name, variable.value ?? '');
  return settings;
}

/** The files a container sees under its mounts: path → content, from the rendered Secrets and ConfigMaps. */
export function mountedFiles(objects: readonly KubernetesObject[], pod: PodSpec, container: Container): Map<string, string> {
  const files = new Map<string, string>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((candidate) => candidate.name === mount.name);
    const sources: { kind: 'ConfigMap' | 'Secret'; name: string; items?: { key: string; path: string }[] }[] = [
      ...(volume?.secret ? [{ kind: 'Secret' as const, name: volume.secret.secretName, items: volume.secret.items }] : []),
      ...(volume?.configMap ? [{ kind: 'ConfigMap' as const, ...volume.configMap }] : []),
      ...(volume?.projected?.sources ?? []).flatMap((source) => [
        ...(source.secret ? [{ kind: 'Secret' as const, ...source.secret }] : []),
        ...(source.configMap ? [{ kind: 'ConfigMap' as const, ...source.configMap }] : []),
      ]),
    ];
    for (const source of sources) {
      const data = keysOf(objects, source.kind, source.name) ?? {};
      const items = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) if (item.key in data) files.set(`${mount.mountPath}/${item.path}`, data[item.key] ?? '');
    }
  }
  return files;
}

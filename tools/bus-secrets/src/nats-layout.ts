/** Where the NATS nodes run, as their configuration, certificate and the operator's env file must name them. */
export interface NatsLayout {
  /** Server names, one configuration file each (`nats/<name>.json`). */
  nodes: readonly string[];
  /** Names and addresses the nodes' certificate is valid for: every name a client or another node dials. */
  certificateHosts: readonly string[];
  routePort: number;
  /** The other nodes' route URLs, as this node dials them. */
  routesOf(node: string): string[];
  monitor: { host: string; port: number };
  /** The configuration text as this platform runs it (natsServerConfig's, plus what only this platform needs). */
  finish(config: string): string;
  /** The operator env file's lines that say how to reach the bus from the operator's machine. */
  operatorLines(caFile: string): string[];
}

const CLIENT_PORT = 4222;
const ROUTE_PORT = 6222;
const MONITOR_PORT = 8222;

/** docker-compose.yml: services named after the nodes, monitoring on each container's loopback only. */
export function composeNatsLayout(nodes: readonly string[]): NatsLayout {
  return {
    nodes,
    certificateHosts: [...nodes, 'localhost', '127.0.0.1'],
    routePort: ROUTE_PORT,
    routesOf: (node) => nodes.filter((other) => other !== node).map((other) => `nats://${other}:${ROUTE_PORT}`),
    monitor: { host: '127.0.0.1', port: MONITOR_PORT },
    finish: (config) => config,
    operatorLines: (caFile) => [
      '# For `npm run svc -- keys create --over-bus` on the docker host: set -a; . deploy/secrets/env/operator.env; set +a',
      `NATS_URL=${nodes.map((_node, index) => `tls://127.0.0.1:${CLIENT_PORT + index}`).join(',')}`,
      `NATS_CA_FILE=${caFile}`,
    ],
  };
}

/** deploy/kubernetes: the StatefulSet and its headless Service, named as the NATS Helm chart names them. */
export const KUBERNETES_NATS = { statefulSet: 'nats', headlessService: 'nats-headless', clientService: 'nats', replicas: 3 } as const;

/** A pod's stable DNS name inside the namespace: `<pod>.<headless service>`. */
export function kubernetesNatsHost(node: string): string {
  return `${node}.${KUBERNETES_NATS.headlessService}`;
}

/**
 * deploy/kubernetes: pods nats-0..2 of the StatefulSet, each reached at its stable name through the headless Service
 * (namespace-free, so one set of files serves any namespace). As the Helm chart does: the nodes do not advertise their
 * pod addresses to clients (a client dials only names the certificate holds), they enter lame-duck mode before
 * stopping (the pod's preStop signals the pid file), and monitoring listens on the pod's address, where the kubelet's
 * probes, the Prometheus exporter and KEDA's scaler read it (a NetworkPolicy admits only those).
 */
export function kubernetesNatsLayout(): NatsLayout {
  const nodes = Array.from({ length: KUBERNETES_NATS.replicas }, (_value, index) => `${KUBERNETES_NATS.statefulSet}-${index}`);
  return {
    nodes,
    certificateHosts: [KUBERNETES_NATS.clientService, KUBERNETES_NATS.headlessService, ...nodes.map(kubernetesNatsHost), 'localhost', '127.0.0.1'],
    routePort: ROUTE_PORT,
    routesOf: (node) => nodes.filter((other) => other !== node).map((other) => `nats://${kubernetesNatsHost(other)}:${ROUTE_PORT}`),
    monitor: { host: '0.0.0.0', port: MONITOR_PORT },
    finish: (config) => {
      const parsed = JSON.parse(config) as { cluster: Record<string, unknown> } & Record<string, unknown>;
      const finished = {
        ...parsed,
        pid_file: '/var/run/nats/nats.pid',
        lame_duck_duration: '30s',
        lame_duck_grace_period: '10s',
        cluster: { ...parsed.cluster, no_advertise: true },
      };
      return `${JSON.stringify(finished, null, 2)}\n`;
    },
    operatorLines: (caFile) => [
      '# For `npm run svc -- keys create --over-bus` from your machine: kubectl -n <namespace> port-forward svc/nats 4222,',
      '# then set -a; . <this file>; set +a',
      `NATS_URL=tls://localhost:${CLIENT_PORT}`,
      `NATS_CA_FILE=${caFile}`,
    ],
  };
}

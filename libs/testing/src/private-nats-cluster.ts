import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntil } from './free-port';
import { NatsServerExitedError, NatsServerProcess, natsServerBinary, type TestNats, type TestNatsOptions } from './private-nats';

export interface TestNatsClusterNode {
  /** The node's server name (`n1`, `n2`, …), as JetStream reports leaders and peers. */
  name: string;
  url: string;
  running: boolean;
  /** SIGKILL, as a crashed machine: the node leaves without telling its peers. */
  kill(): Promise<void>;
  /** Starts the node again on its ports and store; it rejoins the cluster and catches up. */
  start(): Promise<void>;
  /** Its name, whether it runs (or how it ended) and its last log lines. */
  describe(): string;
}

export interface TestNatsCluster extends TestNats {
  nodes: TestNatsClusterNode[];
  /** Waits until every running node names the same running node as JetStream meta leader; returns its name. */
  waitForMetaLeader(deadlineMs?: number): Promise<string>;
  /** The permission violations every node logged, each line prefixed with its node's name. */
  violations(): string[];
}

interface JszAnswer {
  meta_cluster?: { leader?: string };
}

/**
 * A private NATS cluster with JetStream: `size` nats-server processes on 127.0.0.1, routed to each other,
 * each with a store directory of its own. Resolves once JetStream has a meta leader. Needs the nats-server
 * binary (there is no shared cluster to fall back on).
 */
export async function startTestNatsCluster(size = 3, options: TestNatsOptions = {}): Promise<TestNatsCluster> {
  const binary = natsServerBinary();
  if (!binary) throw new Error('a NATS cluster test needs the nats-server binary (set NATS_SERVER_BIN)');
  // Ports are free when handed out, but another process may take one before its node listens: start anew then.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startClusterOnFreshPorts(binary, size, options);
    } catch (error) {
      if (!(error instanceof NatsServerExitedError) || attempt >= CLUSTER_START_ATTEMPTS) throw error;
    }
  }
}

const CLUSTER_START_ATTEMPTS = 3;

/** `count` distinct free ports (the OS may hand the same one out twice once it was released). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function startClusterOnFreshPorts(binary: string, size: number, options: TestNatsOptions): Promise<TestNatsCluster> {
  const clusterName = `svc-test-${randomBytes(3).toString('hex')}`;
  const storeRoot = mkdtempSync(join(tmpdir(), 'svc-test-nats-cluster-'));
  const free = await distinctFreePorts(size * 3);
  const ports = Array.from({ length: size }, (_, index) => ({ client: free[index * 3] ?? 0, route: free[index * 3 + 1] ?? 0, monitor: free[index * 3 + 2] ?? 0 }));
  const servers = ports.map((port, index) => {
    const routes = ports.filter((other) => other !== port).map((other) => `nats://127.0.0.1:${other.route}`);
    const name = `n${index + 1}`;
    const storeDir = join(storeRoot, name);
    const args = options.config
      ? ['-c', options.config({ name, clientPort: port.client, storeDir, cluster: { name: clusterName, routePort: port.route, routes, monitorPort: port.monitor } })]
      : [
          ...['-a', '127.0.0.1', '-p', String(port.client), '-m', String(port.monitor)],
          ...['--server_name', name, '--cluster_name', clusterName],
          ...['--cluster', `nats://127.0.0.1:${port.route}`, '--routes', routes.join(',')],
          ...['-js', '-sd', storeDir],
        ];
    return { name, monitor: port.monitor, process: new NatsServerProcess(binary, args, port.client, options.scheme) };
  });

  const metaLeaderSeenBy = async (monitorPort: number): Promise<string | undefined> => {
    const answer = (await (await fetch(`http://127.0.0.1:${monitorPort}/jsz`)).json()) as JszAnswer;
    return answer.meta_cluster?.leader || undefined;
  };
  const waitForMetaLeader = async (deadlineMs = 30000): Promise<string> => {
    let leader = '';
    await waitUntil(
      async () => {
        const running = servers.filter((server) => server.process.running);
        const seen = await Promise.all(running.map((server) => metaLeaderSeenBy(server.monitor)));
        const [first] = seen;
        const agreed = first !== undefined && seen.every((name) => name === first) && running.some((server) => server.name === first);
        if (agreed) leader = first;
        return agreed;
      },
      deadlineMs,
      `a JetStream meta leader in NATS cluster ${clusterName}`,
    );
    return leader;
  };

  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.process.stop('SIGTERM')));
    rmSync(storeRoot, { recursive: true, force: true });
  };
  try {
    await Promise.all(servers.map((server) => server.process.start()));
    await waitForMetaLeader();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: servers.map((server) => server.process.url).join(','),
    violations: () => servers.flatMap((server) => server.process.violations.map((line) => `${server.name}: ${line}`)),
    nodes: servers.map((server) => ({
      name: server.name,
      url: server.process.url,
      get running() {
        return server.process.running;
      },
      kill: () => server.process.stop('SIGKILL'),
      start: () => server.process.start(),
      describe: () => `${server.name}: ${server.process.describe()}`,
    })),
    waitForMetaLeader,
    restart: async () => {
      for (const server of servers) {
        await server.process.stop('SIGTERM');
        await server.process.start();
        await waitForMetaLeader();
      }
    },
    stop,
  };
}

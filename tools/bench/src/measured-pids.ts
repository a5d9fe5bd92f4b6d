import type { ServiceProcess, TestStack } from '@svc/system-testing';
import { childPidsNamed } from './child-processes';

/** The processes whose CPU and memory are reported: every service (extra workers by their own names) and the private nats-server. */
export function measuredPids(stack: TestStack, extraWorkers: ReadonlyMap<string, ServiceProcess> = new Map()): Record<string, number | undefined> {
  const pids: Record<string, number | undefined> = Object.fromEntries([...stack.processes].map(([service, child]) => [service, child.pid]));
  for (const [name, child] of extraWorkers) pids[name] = child.pid;
  const nats = childPidsNamed('nats-server')[0];
  if (nats !== undefined) pids['nats-server'] = nats;
  return pids;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ServiceName } from '@svc/contracts';

/** Start order: the registry first (it creates and migrates the control database), the gateway last. */
export const START_ORDER: ServiceName[] = ['job-registry', 'extractor', 'stager', 'loader', 'api-gateway'];

export function spawnService(distRoot: string, service: ServiceName, env: Record<string, string>): ChildProcess {
  const entry = join(distRoot, 'apps', service, 'src', 'main.js');
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${service}] `.padEnd(15);
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  return child;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ServiceName } from '@svc/contracts';
import { natsServerTerminalLine, terminalLine, type OutputFormat, type ServiceLogFiles } from './service-output';

/** Where a process's output lines go: the terminal (shortened unless `json`) and, under `human`, its log file. */
export interface OutputSink {
  format: OutputFormat;
  files: ServiceLogFiles;
}

/** Start order: the registry first (it creates and migrates the control database), the gateway last. */
export const START_ORDER: ServiceName[] = ['job-registry', 'extractor', 'stager', 'loader', 'api-gateway'];

export function spawnService(distRoot: string, service: ServiceName, env: Record<string, string>, sink: OutputSink): ChildProcess {
  return spawnLabelled(service, process.execPath, [join(distRoot, 'apps', service, 'src', 'main.js')], env, sink);
}

/** `npm run demo`'s live mode: the demo replication, and a change in its source every few seconds. */
export function spawnLiveDemo(distRoot: string, env: Record<string, string>, sink: OutputSink): ChildProcess {
  return spawnLabelled('demo', process.execPath, [join(distRoot, 'tools', 'demo', 'src', 'main.js'), '--live'], env, sink);
}

/** npm start's own nats-server: it needs no setting from the environment, so it is given none of the stack's secrets. */
export function spawnNatsServer(binary: string, args: readonly string[], sink: OutputSink): ChildProcess {
  return spawnLabelled('nats-server', binary, args, {}, sink, natsServerTerminalLine);
}

/** A process whose output lines are shown prefixed with its label (those `shown` keeps) and kept in its log file. */
function spawnLabelled(label: string, command: string, args: readonly string[], env: Record<string, string>, sink: OutputSink, shown = terminalLine): ChildProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${label}] `.padEnd(15);
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (sink.format === 'human') sink.files.append(label, line);
        const text = shown(line, sink.format);
        if (text !== null) process.stdout.write(prefix + text + '\n');
      }
    });
  }
  return child;
}

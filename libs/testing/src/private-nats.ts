import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntil } from './free-port';

export interface TestNats {
  url: string;
  stop(): Promise<void>;
}

const NATS_SERVER_CANDIDATES = [process.env['NATS_SERVER_BIN'], '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/**
 * A NATS server with JetStream of the test's own, so a test's services never answer (or steal) requests
 * meant for another stack running on the same machine. Falls back to TEST_NATS_URL / NATS_URL when no
 * nats-server binary is installed.
 */
export async function startTestNats(): Promise<TestNats> {
  const binary = NATS_SERVER_CANDIDATES.find((candidate) => candidate !== undefined && existsSync(candidate));
  if (!binary) {
    return { url: process.env['TEST_NATS_URL'] ?? process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222', stop: async () => undefined };
  }
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'svc-test-nats-'));
  const child: ChildProcess = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
  await waitUntil(() => tcpOpen(port), 10000, `nats-server on port ${port}`);
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

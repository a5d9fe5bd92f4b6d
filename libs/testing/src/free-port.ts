import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where this machine's outgoing connections take their local ports (Linux's default when it cannot be read). */
function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const parsed = Number(start);
    return Number.isInteger(parsed) && parsed > 0 ? parsed : 32768;
  } catch {
    return 32768;
  }
}

/** Ports of servers found on our machines (RabbitMQ's distribution port among them) that a test must not take. */
const TAKEN_BY_SERVICES = new Set([25672, 27017]);
const LOWEST_PORT = 20000;

/** Whether nothing listens on the port of 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port on 127.0.0.1 that nothing listens on right now, below the range the OS takes outgoing connections' local ports
 * from: a port the OS handed out and released (listen on 0) is soon some connection's local port to PostgreSQL or NATS
 * again, and the server started on it failed with EADDRINUSE (seen in CI). Falls back to the OS's choice where no such
 * range is left below.
 */
export async function freePort(): Promise<number> {
  const highest = ephemeralRangeStart() - 1;
  for (let attempt = 0; highest - LOWEST_PORT > 1000 && attempt < 50; attempt += 1) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (highest - LOWEST_PORT + 1));
    if (!TAKEN_BY_SERVICES.has(port) && (await bindable(port))) return port;
  }
  return osAssignedPort();
}

function osAssignedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns true or the deadline passes. */
export async function waitUntil(probe: () => Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
}

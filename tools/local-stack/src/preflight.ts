import { createConnection } from 'node:net';

/** Resolves to null when a TCP connection to the URL's host and port succeeds, else a short reason. */
export async function tcpReachable(url: string, defaultPort: number, timeoutMs = 3000): Promise<string | null> {
  const parsed = new URL(url);
  const port = Number(parsed.port || defaultPort);
  const host = parsed.hostname || '127.0.0.1';
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const timer = setTimeout(() => finish(`no answer from ${host}:${port} within ${timeoutMs} ms`), timeoutMs);
    function finish(result: string | null) {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    }
    socket.once('connect', () => finish(null));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(`${host}:${port}: ${error.code ?? error.message}`));
  });
}
